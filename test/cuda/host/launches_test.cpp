// The CUDA runtime's launches, run on the CPU: graphs lowered for planning (no GPU), memory
// planned for a multi-stream schedule, and every node's launch functions called in an order
// the schedule allows, with host pointers into the planned arena and the CPU versions of the
// kernel functions (cpu_kernels.cpp). Checks, against the reference executor, everything the
// GPU path computes on the host: coalesced strides, view offsets, in-place concatenation,
// pad/pool/reduce/resize descriptors, workspace and arena placement. Not checked here: the
// .cu kernel bodies, and cuDNN/cuBLASLt (convolutions cannot be lowered without a GPU, and
// matrix products only for planning); test/cuda/*_test.cpp checks those on a GPU. The fused
// transformer ops are in fused_launches_test.cpp.
#include <gtest/gtest.h>

#include "../test_graphs.hpp"
#include "host_launches.hpp"

namespace autograph::cuda {
namespace {

using testing::Net;
using testing::random_graph;

void check(Graph<> const& g, std::string const& what, float lo = -1.f, float hi = 1.f) { testing::check_launches(g, what, lo, hi); }

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
