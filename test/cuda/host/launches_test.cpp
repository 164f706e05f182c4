// The CUDA runtime's launches, run on the CPU: graphs lowered for planning (no GPU), memory
// planned for a multi-stream schedule, and every node's launch functions called in an order
// the schedule allows, with host pointers into the planned arena and the CPU versions of the
// kernel functions (cpu_kernels.cpp). Checks, against the reference executor, everything the
// GPU path computes on the host: coalesced strides, view offsets, in-place concatenation,
// pad/pool/reduce/resize descriptors, workspace and arena placement. Not checked here: the
// .cu kernel bodies, and cuDNN/cuBLASLt (convolutions and matmuls cannot be lowered without a
// GPU); test/cuda/*_test.cpp checks those on a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autograph/cuda/lower.hpp"
#include "autograph/cuda/memory_plan.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/schedule/waits.hpp"
#include "../test_graphs.hpp"

namespace autograph::cuda {
namespace {

using Kind = LoweredGraph::ValueInfo::Kind;
using testing::Net;
using testing::random_graph;

/// A random order of the launches of `s` that respects stream order and waits.
std::vector<Launch const*> random_interleaving(Schedule const& s, std::mt19937_64& rng) {
  std::set<NodeId> done;
  std::vector<std::size_t> next(s.streams.size(), 0);
  std::vector<Launch const*> order;
  while (order.size() < s.num_kernels()) {
    std::vector<std::size_t> ready;
    for (std::size_t t = 0; t < s.streams.size(); ++t)
      if (next[t] < s.streams[t].size() && std::ranges::all_of(s.streams[t][next[t]].waits, [&](NodeId w) { return done.contains(w); }))
        ready.push_back(t);
    if (ready.empty()) throw Error("the schedule deadlocks");
    std::size_t t = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
    Launch const& l = s.streams[t][next[t]++];
    done.insert(l.node);
    order.push_back(&l);
  }
  return order;
}

/// Calls every launch of `lg` in `order` with pointers into a host arena laid out by the
/// memory plan (stale bytes are NaN, so reading a buffer another node has taken over shows).
std::vector<Tensor> run_launches(LoweredGraph const& lg, Schedule const& s, std::vector<Launch const*> const& order,
                                 std::vector<Tensor> const& inputs) {
  HappensBefore hb(lg.id_bound);
  hb.build(s);
  validate_schedule(lg, hb, true);
  MemoryPlan m = plan_memory(lg, hb, true);
  std::vector<float> arena(m.arena.size / sizeof(float) + 1, std::nanf(""));
  std::vector<Tensor> in;  // copies: the launches get non-const pointers
  for (Tensor const& t : inputs) in.push_back(Tensor(t.shape(), std::vector<float>(t.data().begin(), t.data().end())));
  auto ptr = [&](std::uint32_t v) -> float* {
    if (lg.values[v].kind == Kind::empty) return nullptr;
    auto [root, offset] = lg.root(v);
    auto const& rv = lg.values[root];
    switch (rv.kind) {
      case Kind::input: return in[rv.slot].mutable_ptr() + offset;
      case Kind::constant: return const_cast<float*>(lg.host_constants[rv.slot].ptr()) + offset;
      case Kind::buffer: return arena.data() + m.offset(lg, v) / sizeof(float);
      default: return nullptr;
    }
  };
  for (Launch const* l : order) {
    std::size_t index = lg.node_index[l->node];
    auto const& n = lg.nodes[index];
    std::vector<float const*> ins;
    std::vector<float*> outs;
    std::vector<void*> workspaces;
    std::vector<void const*> uploads;
    for (std::uint32_t v : n.inputs) ins.push_back(ptr(v));
    for (std::uint32_t v : n.outputs) outs.push_back(ptr(v));
    for (std::uint32_t r : m.workspace_request[index]) workspaces.push_back(arena.data() + m.arena.offsets[r] / sizeof(float));
    for (auto const& u : n.host_uploads) uploads.push_back(u.data());
    LaunchArgs args{nullptr, nullptr, ins, outs, workspaces, uploads, n.placed};
    for (auto const& launch : n.launches) launch.fn(args);
  }
  std::vector<Tensor> result;
  for (std::uint32_t v : lg.outputs) {
    Tensor t(lg.values[v].desc.shape);
    if (t.numel() > 0) std::copy_n(ptr(v), t.numel(), t.mutable_ptr());
    result.push_back(std::move(t));
  }
  return result;
}

::testing::AssertionResult close(Tensor const& got, Tensor const& want, double tolerance) {
  if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shape " << got.shape().to_string() << " vs " << want.shape().to_string();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.data().size(); ++i) {
    double g = got.data()[i], w = want.data()[i];
    if (std::isnan(g) != std::isnan(w)) return ::testing::AssertionFailure() << "value " << i << " is " << g << ", expected " << w;
    if (std::isnan(w) || std::isinf(w)) continue;
    num += (g - w) * (g - w);
    den += w * w;
  }
  double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!(rel <= tolerance)) return ::testing::AssertionFailure() << "relative L2 error " << rel << " > " << tolerance;
  return ::testing::AssertionSuccess();
}

/// Lowers `g` (views on and off), and runs its launches under the sequential schedule,
/// Nimble's, and random streams, each in several interleavings; expects the reference's outputs.
void check(Graph<> const& g, std::string const& what, float lo = -1.f, float hi = 1.f, double tolerance = 1e-5) {
  std::vector<Tensor> inputs;
  std::uint64_t seed = 3;
  for (NodeId id : g.inputs()) inputs.push_back(Tensor::random(g[id].outputs[0].shape, seed++, lo, hi));
  auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(inputs));
  KernelDag dag(g);
  std::mt19937_64 rng(7);
  std::vector<std::vector<NodeId>> streams(3);
  for (NodeId id : dag.nodes()) streams[std::uniform_int_distribution<std::size_t>(0, 2)(rng)].push_back(id);
  std::vector<std::pair<std::string, Schedule>> schedules{
      {"sequential", schedule::sequential(dag)}, {"nimble", schedule::nimble(dag)}, {"random streams", insert_waits(dag, streams)}};
  for (LowerOptions options : {LowerOptions{}, LowerOptions{.views = false, .in_place_concat = false}}) {
    auto lg = lower(g, nullptr, options);
    for (auto const& [name, s] : schedules)
      for (int i = 0; i < 4; ++i) {
        auto got = run_launches(*lg, s, random_interleaving(s, rng), inputs);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t o = 0; o < got.size(); ++o)
          EXPECT_TRUE(close(got[o], want[o], tolerance))
              << what << ", " << (options.views ? "views" : "copies") << ", " << name << ", interleaving " << i << ", output " << o;
      }
  }
}

TEST(HostLaunches, Elementwise) {
  auto unary = [&]<class O>(O op, float lo, float hi) {
    for (Shape s : {Shape{3, 17, 5}, Shape{4, 64}}) {
      Net n;
      check(n.done({n.op(op, {n.input(s)})}), std::string(O::name), lo, hi);
    }
  };
  unary(Relu{}, -3, 3);
  unary(Sigmoid{}, -6, 6);
  unary(Tanh{}, -3, 3);
  unary(Gelu{}, -4, 4);
  unary(Exp{}, -3, 3);
  unary(Log{}, 0.1f, 5);
  unary(Sqrt{}, 0, 5);
  unary(Erf{}, -3, 3);
  unary(Neg{}, -3, 3);
  unary(Abs{}, -3, 3);
  unary(Reciprocal{}, 0.2f, 4);
  unary(LeakyRelu{0.2f}, -3, 3);
  unary(Clip{-0.5f, 0.7f}, -2, 2);
  unary(HardSigmoid{}, -4, 4);
  unary(HardSwish{}, -5, 5);
  unary(Scale{-1.5f, 0.25f}, -3, 3);
  unary(Identity{}, -3, 3);
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{4, 6, 8}, {4, 6, 8}}, {{2, 3, 4, 5}, {3, 1, 1}}, {{1, 5}, {4, 1}}, {{2, 3, 4}, {}}, {{6, 1, 4}, {6, 5, 4}}, {{2, 3, 1, 5}, {1, 3, 4, 1}}};
  auto binary = [&]<class O>(O op) {
    for (auto const& [a, b] : shapes) {
      Net n;
      check(n.done({n.op(op, {n.input(a), n.input(b)})}), std::string(O::name) + " " + a.to_string() + " " + b.to_string(), 0.5f, 2.f);
    }
  };
  binary(Add{});
  binary(Sub{});
  binary(Mul{});
  binary(Div{});
  binary(Pow{});
  binary(Max{});
  binary(Min{});
}

TEST(HostLaunches, PoolingAndNormalisation) {
  std::vector<Pool2D> pools = {
      Pool2D{PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1}},
      Pool2D{PoolKind::avg, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, false},
      Pool2D{PoolKind::avg, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, true},
      Pool2D{PoolKind::max, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true},
      Pool2D{PoolKind::avg, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, true, true},
      Pool2D{PoolKind::avg, {2, 2}, {2, 2}, {0, 0, 1, 1}},
      Pool2D{PoolKind::avg, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
      Pool2D{PoolKind::max, {1, 1}, {1, 1}, {0, 0, 0, 0}, true},
  };
  for (auto const& p : pools) {
    Net n;
    check(n.done({n.op(p, {n.input({2, 3, 10, 11})})}), "Pool2D " + p.attributes());
  }
  {
    Net n;
    Value y = n.op(BatchNorm{1e-3f}, {n.input({2, 6, 5, 5}), n.weight({6}), n.weight({6}), n.weight({6}), n.weight({6}, 0.5f, 1.5f)});
    check(n.done({y}), "BatchNorm");
  }
  for (auto [shape, axis] : {std::pair{Shape{3, 7, 64}, std::int64_t{-1}}, std::pair{Shape{3, 7, 64}, std::int64_t{-2}},
                             std::pair{Shape{2, 3000}, std::int64_t{-1}}}) {
    Net n;
    Shape norm(shape.dims().subspan(shape.normalize_axis(axis)));
    check(n.done({n.op(LayerNorm{axis, 1e-5f}, {n.input(shape), n.weight(norm), n.weight(norm)})}), "LayerNorm " + shape.to_string());
  }
  for (bool keep : {false, true})  // a residual + position embedding; the sum kept or not
    for (Shape b : {Shape{2, 7, 64}, Shape{1, 7, 64}}) {
      Net n;
      Value y = n.op(AddLayerNorm{-1, 1e-6f, keep}, {n.input({2, 7, 64}), n.input(b), n.weight({64}), n.weight({64})});
      std::vector<Value> outs{y};
      if (keep) outs.push_back(Value{y.node, 1});
      check(n.done(outs), "AddLayerNorm + " + b.to_string() + (keep ? " keeping the sum" : ""));
    }
  for (auto [shape, axis] : {std::pair{Shape{4, 10}, std::int64_t{-1}}, std::pair{Shape{2, 5, 7}, std::int64_t{1}},
                             std::pair{Shape{3, 4, 5}, std::int64_t{0}}}) {
    Net n;
    check(n.done({n.op(Softmax{axis}, {n.input(shape)})}), "Softmax " + shape.to_string() + " axis " + std::to_string(axis), -5, 5);
  }
  for (Reduce r : {Reduce{ReduceKind::mean, {1}, true}, Reduce{ReduceKind::sum, {0, 2}, false}, Reduce{ReduceKind::mean, {}, false},
                   Reduce{ReduceKind::sum, {-1}, true}, Reduce{ReduceKind::mean, {2, 3}, true}, Reduce{ReduceKind::sum, {1, 3}, false}}) {
    Net n;
    check(n.done({n.op(r, {n.input({3, 4, 5, 6})})}), "Reduce " + r.attributes());
  }
}

TEST(HostLaunches, DataMovement) {
  {  // concatenation in place (outer 1), with an input read as is and a repeated input
    Net n;
    Value x = n.input({1, 4, 4, 4}), z = n.input({1, 2, 4, 4});
    Value a = n.op(Relu{}, {x}), b = n.op(Sigmoid{}, {x});
    Value y = n.op(Concat{1}, {a, z, b, a});
    check(n.done({n.op(Tanh{}, {y}), a}), "Concat in place");
  }
  {  // pieces at offsets that are not 16-byte multiples stay copies
    Net n;
    Value x = n.input({1, 3, 3, 3});
    check(n.done({n.op(Concat{1}, {n.op(Relu{}, {x}), n.op(Neg{}, {x}), n.op(Abs{}, {x})})}), "Concat at odd offsets");
  }
  {
    Net n;
    Value a = n.op(Relu{}, {n.input({2, 3, 4})}), b = n.op(Neg{}, {n.input({2, 5, 4})});
    check(n.done({n.op(Concat{-2}, {a, b}), n.op(Concat{0}, {a, a})}), "Concat along inner and outer axes");
  }
  {
    Net n;
    Value x = n.input({1, 3, 4, 4});
    Value inner = n.op(Concat{1}, {n.op(Relu{}, {x}), n.op(Abs{}, {x})});
    check(n.done({n.op(Concat{1}, {n.op(Neg{}, {x}), inner})}), "Concat nested");
  }
  {
    Net n;
    Value x = n.op(Relu{}, {n.input({1, 10, 3, 3})});
    auto parts = n.ops(Split{1, {3, 3, 4}}, {x});
    auto inner = n.ops(Split{2, {1, 2}}, {parts[2]});
    check(n.done({n.op(Neg{}, {parts[0]}), parts[1], inner[0], n.op(Abs{}, {inner[1]})}), "Split");
  }
  {
    Net n;
    Value x = n.input({2, 3, 4, 5});
    Value r = n.op(Reshape{{6, 20}}, {x});
    check(n.done({n.op(Transpose{{1, 0}}, {r}), n.op(Transpose{{0, 2, 3, 1}}, {x}), n.op(Transpose{{2, 0, 3, 1}}, {n.op(Exp{}, {x})})}),
          "Reshape and Transpose");
  }
  {
    Net n;
    Value x = n.op(Neg{}, {n.input({4, 6, 8})});
    Value contiguous = n.op(Slice{{0}, {1}, {3}, {}}, {x});
    Value single = n.op(Slice{{0, 1}, {2, 3}, {3, 4}, {}}, {x});
    Value strided = n.op(Slice{{2}, {1}, {8}, {3}}, {x});
    Value from_back = n.op(Slice{{1, 2}, {-4, -6}, {100, -1}, {1, 2}}, {x});
    check(n.done({n.op(Abs{}, {contiguous}), single, strided, from_back}), "Slice");
  }
  {
    Net n;
    Value p = n.op(Pad{{0, 1, 2, 0, 0, 0, 1, 3}, 0.5f}, {n.input({2, 3, 4, 5})});
    Value e = n.op(Enlarge{{5, 7}}, {n.input({4, 2, 1, 3})});
    check(n.done({p, e}), "Pad and Enlarge");
  }
}

TEST(HostLaunches, Resize) {
  auto resize = [](std::vector<std::int64_t> sizes, ResizeMode m, ResizeCoordinate c) {
    Resize r;
    r.sizes = std::move(sizes);
    r.mode = m;
    r.coordinate = c;
    return r;
  };
  std::vector<Resize> cases;
  cases.push_back(resize({1, 2, 8, 10}, ResizeMode::nearest, ResizeCoordinate::asymmetric));
  cases.back().nearest = ResizeNearest::floor;
  cases.push_back(resize({1, 2, 8, 10}, ResizeMode::linear, ResizeCoordinate::half_pixel));
  cases.push_back(resize({1, 2, 3, 2}, ResizeMode::linear, ResizeCoordinate::pytorch_half_pixel));
  cases.push_back(resize({1, 2, 7, 9}, ResizeMode::cubic, ResizeCoordinate::align_corners));
  cases.push_back(resize({1, 2, 9, 11}, ResizeMode::cubic, ResizeCoordinate::half_pixel));
  cases.back().exclude_outside = true;
  cases.push_back(resize({1, 2, 6, 6}, ResizeMode::linear, ResizeCoordinate::tf_crop_and_resize));
  cases.back().roi = {0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3};
  cases.back().extrapolation_value = -7.f;
  cases.push_back(resize({2, 2, 4, 5}, ResizeMode::linear, ResizeCoordinate::half_pixel));  // every axis changes (batch too)
  cases.push_back(resize({1, 2, 4, 5}, ResizeMode::linear, ResizeCoordinate::half_pixel));  // nothing changes: a view
  for (auto const& op : cases) {
    Net n;
    check(n.done({n.op(op, {n.op(Relu{}, {n.input({1, 2, 4, 5})})})}), "Resize " + op.attributes());
  }
}

TEST(HostLaunches, RandomGraphs) {
  for (std::uint64_t seed = 0; seed < 10; ++seed) check(random_graph(seed, 40, /*layout_ops=*/true), "random graph " + std::to_string(seed));
}

}  // namespace
}  // namespace autograph::cuda
