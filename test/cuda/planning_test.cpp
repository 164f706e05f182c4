// The host side of the CUDA runtime without a GPU: graphs lowered for planning only (views,
// in-place concatenation, workspaces decided, nothing allocated), memory planned for
// multi-stream schedules, and the plan executed on the CPU — every node's reference kernel
// reading and writing the very arena offsets the GPU would use, in many interleavings the
// schedule allows. A wrong view offset, a misplaced concat piece or a buffer reused while
// another stream still reads it changes the result.
#include <gtest/gtest.h>

#include <random>

#include "autograph/cuda/lower.hpp"
#include "autograph/cuda/memory_plan.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/schedule/waits.hpp"
#include "test_graphs.hpp"

namespace autograph::cuda {
namespace {

using Kind = LoweredGraph::ValueInfo::Kind;
using testing::random_graph;

/// A random order of the launches of `s` that respects stream order and waits.
std::vector<Launch const*> random_interleaving(Schedule const& s, std::mt19937_64& rng) {
  std::map<NodeId, std::size_t> done_at;  // node -> completion step
  std::vector<std::size_t> next(s.streams.size(), 0);
  std::vector<Launch const*> order;
  std::size_t total = s.num_kernels();
  while (order.size() < total) {
    std::vector<std::size_t> ready;
    for (std::size_t t = 0; t < s.streams.size(); ++t) {
      if (next[t] == s.streams[t].size()) continue;
      auto const& l = s.streams[t][next[t]];
      if (std::ranges::all_of(l.waits, [&](NodeId w) { return done_at.contains(w); })) ready.push_back(t);
    }
    if (ready.empty()) throw Error("the schedule deadlocks");
    std::size_t t = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
    Launch const& l = s.streams[t][next[t]++];
    done_at[l.node] = order.size();
    order.push_back(&l);
  }
  return order;
}

/// Runs `lg` (lowered from `g` for planning) under `s` on the CPU: each node's reference
/// kernel reads its inputs from and writes its outputs to the planned arena offsets, nodes in
/// the given order. Returns the graph outputs read back from where the plan put them.
std::vector<Tensor> emulate(Graph<> const& g, LoweredGraph const& lg, Schedule const& s, std::vector<Launch const*> const& order,
                            std::vector<Tensor> const& inputs) {
  HappensBefore hb(lg.id_bound);
  hb.build(s);
  validate_schedule(lg, hb, true);
  MemoryPlan m = plan_memory(lg, hb, true);
  std::vector<float> arena(m.arena.size / sizeof(float) + 1, std::nanf(""));  // stale data is NaN: reading it shows
  auto ptr = [&](std::uint32_t v) -> float* {
    auto [root, offset] = lg.root(v);
    auto const& rv = lg.values[root];
    switch (rv.kind) {
      case Kind::input: return const_cast<float*>(inputs[rv.slot].ptr()) + offset;
      case Kind::constant: return const_cast<float*>(lg.host_constants[rv.slot].ptr()) + offset;
      case Kind::buffer: return arena.data() + m.offset(lg, v) / sizeof(float);
      default: return nullptr;
    }
  };
  auto read = [&](std::uint32_t v) {
    auto const& d = lg.values[v].desc;
    Tensor t(d.shape);
    if (d.numel() > 0) std::copy_n(ptr(v), d.numel(), t.mutable_ptr());
    return t;
  };
  for (Launch const* l : order) {
    auto const* n = lg.node(l->node);
    if (n->launches.empty()) continue;  // views only
    std::vector<Tensor> in;
    for (std::uint32_t v : n->inputs) in.push_back(read(v));
    auto out = visit_op<BuiltinOps>(g[l->node].op, [&](auto const& op) -> std::vector<Tensor> {
      using Op = std::remove_cvref_t<decltype(op)>;
      if constexpr (is_source_op<Op>) throw Error("a source was launched");
      else return reference::evaluate(op, in, std::span<TensorDesc const>(g[l->node].outputs));
    });
    for (std::size_t i = 0; i < n->outputs.size(); ++i) {
      std::uint32_t v = n->outputs[i];
      if (lg.values[v].kind != Kind::buffer || lg.values[v].desc.numel() == 0) continue;
      std::copy_n(out[i].ptr(), out[i].numel(), ptr(v));
    }
  }
  std::vector<Tensor> result;
  for (std::uint32_t v : lg.outputs) result.push_back(read(v));
  return result;
}

void expect_equal(std::vector<Tensor> const& got, std::vector<Tensor> const& want, std::string const& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].shape(), want[i].shape()) << what;
    auto a = got[i].data(), b = want[i].data();
    std::size_t differ = 0;
    for (std::size_t k = 0; k < a.size(); ++k) differ += (a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k]))) ? 0 : 1;
    EXPECT_EQ(differ, 0u) << what << ": output " << i << " differs in " << differ << " of " << a.size() << " values";
  }
}

std::vector<Tensor> random_inputs(Graph<> const& g, std::uint64_t seed) {
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, seed++));
  return in;
}

/// Emulates `g` under `s` in `orders` random interleavings (and the schedule's own order)
/// and expects exactly the reference executor's outputs.
void expect_plan_runs(Graph<> const& g, Schedule const& s, LowerOptions const& options, std::string const& what, int orders = 10) {
  auto lg = lower(g, nullptr, options);
  auto in = random_inputs(g, 11);
  auto want = ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
  std::mt19937_64 rng(5);
  for (int i = 0; i < orders; ++i) expect_equal(emulate(g, *lg, s, random_interleaving(s, rng), in), want, what + ", interleaving " + std::to_string(i));
}

/// Inception-style blocks without convolutions (those need cuDNN, hence a GPU): branches of
/// pools and activations, concatenated in place, split into views, sliced and transposed.
Graph<> branchy(std::int64_t blocks = 3) {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 6, 6});
  for (std::int64_t i = 0; i < blocks; ++i) {
    Value b1 = b.relu(x);
    Value b2 = b.sigmoid(b.max_pool(x, {3, 3}, {.pad = {1, 1, 1, 1}}));
    Value b3 = b.tanh(b.avg_pool(b.relu(x), {3, 3}, {.pad = {1, 1, 1, 1}, .count_include_pad = true}));
    Value cat = b.concat({b1, b2, b3, b1});  // b1 twice: placed once, copied once
    auto parts = b.split(cat, 1, {8, 16, 8});
    Value mixed = b.add(parts[0], b.scale(parts[2], 0.5f));
    Value head = b.add(Slice{{1}, {0}, {8}, {}}, {parts[1]});  // the first 8 of 16 channels: a view
    x = b.add(mixed, b.add(head, x));
  }
  Value flat = b.reshape(x, {8, 36});
  return std::move(b).build({b.softmax(b.transpose(flat, {1, 0})), x});
}

TEST(Planning, LowersViewsAndConcatenationsInPlaceWithoutAGpu) {
  Graph<> g = branchy(1);
  auto lg = lower(g, nullptr);
  EXPECT_EQ(lg->device, nullptr);
  std::size_t views = 0, placed = 0;
  for (auto const& v : lg->values) views += v.kind == Kind::view;
  for (auto const& n : lg->nodes) placed += static_cast<std::size_t>(std::ranges::count(n.placed, char{1}));
  EXPECT_EQ(views, 5u);   // three Split pieces, the Slice, the Reshape
  EXPECT_EQ(placed, 3u);  // relu, sigmoid(pool), tanh(pool) written into the concat; relu's second use copied
  // Without views every node that moves data copies it.
  auto copies = lower(g, nullptr, {.views = false, .in_place_concat = false});
  std::size_t copy_views = 0;
  for (auto const& v : copies->values) copy_views += v.kind == Kind::view;
  EXPECT_EQ(copy_views, 4u);  // the Reshape and the contiguous Split's pieces, which are never kernels
}

/// A kernel DAG given by hand, for LoweringBuilder::finish (which reads size(), node(k),
/// preds(k) and is_kernel(id), as of a KernelDag).
struct HandDag {
  std::vector<NodeId> kernels;
  std::vector<std::vector<std::uint32_t>> pred_indices;
  std::uint32_t add(NodeId id, std::vector<std::uint32_t> preds) {
    kernels.push_back(id);
    pred_indices.push_back(std::move(preds));
    return static_cast<std::uint32_t>(kernels.size() - 1);
  }
  std::size_t size() const { return kernels.size(); }
  NodeId node(std::size_t k) const { return kernels[k]; }
  std::span<std::uint32_t const> preds(std::size_t k) const { return pred_indices[k]; }
  bool is_kernel(NodeId id) const { return std::ranges::find(kernels, id) != kernels.end(); }
};

/// Lowers, by hand and for planning only, producers of [1, sizes[i]] (the first asks for
/// needs[i] bytes of alignment, Lowering::require_output_alignment; 0: nothing) into one
/// Concat along axis 1, which offers every piece for in-place placement; then, when
/// `wrap`, a second Concat of a [1, 4] piece and the first Concat's output (placed at 16
/// bytes). Returns the graph: which pieces were placed is in each Concat's `placed`.
std::shared_ptr<LoweredGraph const> lower_concat(std::vector<std::int64_t> const& sizes, std::vector<std::size_t> const& needs, bool wrap = false) {
  NodeId x = 0, cat = static_cast<NodeId>(sizes.size() + 1), head = cat + 1, outer = cat + 2;
  detail::LoweringBuilder b(nullptr, LowerOptions{}, nullptr, outer + 1);
  b.add_input(x, "x", TensorDesc{Shape{1, 4}});
  auto nothing = [](LaunchArgs const&) {};
  HandDag dag;
  std::vector<Value> pieces;
  std::vector<std::uint32_t> piece_kernels;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    auto id = static_cast<NodeId>(i + 1);
    std::vector<TensorDesc> out{TensorDesc{Shape{1, sizes[i]}}};
    auto l = b.begin_node(id, "producer " + std::to_string(i), true, std::vector<Value>{{x, 0}}, out);
    if (needs[i]) l->require_output_alignment(0, needs[i]);
    l->launch("write", nothing);
    b.end_node();
    piece_kernels.push_back(dag.add(id, {}));
    pieces.push_back({id, 0});
    total += sizes[i];
  }
  auto concat = [&](NodeId id, std::vector<Value> const& in, std::vector<std::int64_t> const& lengths, std::int64_t length) {
    std::vector<TensorDesc> out{TensorDesc{Shape{1, length}}};
    auto l = b.begin_node(id, "concat " + std::to_string(id), true, in, out);
    std::int64_t at = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
      l->place_input(i, 0, at);
      at += lengths[i];
    }
    l->launch("copy the rest", nothing);
    b.end_node();
  };
  concat(cat, pieces, sizes, total);
  auto cat_kernel = dag.add(cat, piece_kernels);
  if (!wrap) return b.finish(dag, std::vector<Value>{{cat, 0}});
  std::vector<TensorDesc> out{TensorDesc{Shape{1, 4}}};
  auto l = b.begin_node(head, "head", true, std::vector<Value>{{x, 0}}, out);
  l->launch("write", nothing);
  b.end_node();
  auto head_kernel = dag.add(head, {});
  concat(outer, {{head, 0}, {cat, 0}}, {4, total}, 4 + total);
  dag.add(outer, {head_kernel, cat_kernel});
  return b.finish(dag, std::vector<Value>{{outer, 0}});
}

std::vector<char> placed(LoweredGraph const& lg, NodeId concat) { return lg.node(concat)->placed; }

TEST(Planning, InPlaceConcatenationKeepsTheAlignmentALibraryWriterNeeds) {
  // [1,4] then [1,64]: the second piece starts 16 bytes in, enough for our kernels, not for
  // a writer that asks for 256 (cuDNN's convolutions: issue 16), which is then copied.
  EXPECT_EQ(placed(*lower_concat({4, 64}, {0, 0}), 3), (std::vector<char>{1, 1}));
  EXPECT_EQ(placed(*lower_concat({4, 64}, {256, 256}), 3), (std::vector<char>{1, 0}));
  EXPECT_EQ(placed(*lower_concat({4, 64}, {0, 32}), 3), (std::vector<char>{1, 0}));
  EXPECT_EQ(placed(*lower_concat({4, 64}, {0, 16}), 3), (std::vector<char>{1, 1}));
  // [1,64] then [1,4]: 256 bytes in, so both are placed.
  EXPECT_EQ(placed(*lower_concat({64, 4}, {256, 256}), 3), (std::vector<char>{1, 1}));
  // A placed piece's need passes to the Concat's output: placed 16 bytes into another
  // Concat, it would leave the piece 16-byte aligned, so that Concat copies it instead.
  auto plain = lower_concat({64}, {0}, true), strict = lower_concat({64}, {256}, true);
  EXPECT_EQ(placed(*plain, 2), (std::vector<char>{1}));
  EXPECT_EQ(placed(*plain, 4), (std::vector<char>{1, 1}));
  EXPECT_EQ(placed(*strict, 2), (std::vector<char>{1}));
  EXPECT_EQ(placed(*strict, 4), (std::vector<char>{1, 0}));
  // Where the pieces end up: at their offset in the root buffer, aligned as asked.
  auto [root, offset] = strict->root(strict->value(Value{1, 0}));
  EXPECT_EQ(root, strict->value(Value{2, 0}));
  EXPECT_EQ(offset, 0);
  // The requirement itself is checked.
  detail::LoweringBuilder b(nullptr, LowerOptions{}, nullptr, 2);
  b.add_input(0, "x", TensorDesc{Shape{1, 4}});
  std::vector<TensorDesc> out{TensorDesc{Shape{1, 4}}};
  auto l = b.begin_node(1, "producer", true, std::vector<Value>{{0, 0}}, out);
  EXPECT_THROW(l->require_output_alignment(0, 48), CudaError);
  EXPECT_THROW(l->require_output_alignment(0, 512), CudaError);
  EXPECT_THROW(l->require_output_alignment(1, 256), CudaError);
}

TEST(Planning, OperatorsThatNeedLibrariesNeedAGpu) {
  GraphBuilder<> b;
  Graph<> g = std::move(b).build({b.conv2d(b.input("x", {1, 3, 8, 8}), 4, {3, 3})});
  fill_random_weights(g, 1);
  EXPECT_THROW((void)lower(g, nullptr), CudaError);
}

TEST(Planning, PlansRunOnTheCpuInEveryInterleaving) {
  Graph<> g = branchy();
  KernelDag dag(g);
  for (auto const& options : {LowerOptions{}, LowerOptions{.views = false, .in_place_concat = false}}) {
    std::string mode = options.views ? "views" : "copies";
    expect_plan_runs(g, schedule::sequential(dag), options, mode + ", sequential", 1);
    Schedule nimble = schedule::nimble(dag);
    EXPECT_GT(nimble.num_streams(), 1u);
    expect_plan_runs(g, nimble, options, mode + ", nimble");
  }
}

TEST(Planning, RandomGraphsUnderRandomStreams) {
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    Graph<> g = random_graph(seed, 40, /*layout_ops=*/false);
    KernelDag dag(g);
    std::mt19937_64 rng(seed);
    std::vector<std::vector<NodeId>> streams(2 + seed % 4);
    for (NodeId id : dag.nodes()) streams[std::uniform_int_distribution<std::size_t>(0, streams.size() - 1)(rng)].push_back(id);
    std::string what = "seed " + std::to_string(seed);
    expect_plan_runs(g, insert_waits(dag, streams), {}, what + ", random streams");
    expect_plan_runs(g, schedule::nimble(dag), {}, what + ", nimble");
  }
}

TEST(Planning, RefusesSchedulesThatDoNotRunTheGraph) {
  Graph<> g = branchy(1);
  auto lg = lower(g, nullptr);
  KernelDag dag(g);
  Schedule s = schedule::nimble(dag);
  auto check = [&](Schedule const& bad, bool complete = true) {
    HappensBefore hb(lg->id_bound);
    hb.build(bad);
    validate_schedule(*lg, hb, complete);
  };
  EXPECT_NO_THROW(check(s));
  Schedule dropped = s;
  for (auto& stream : dropped.streams)
    for (auto& l : stream) l.waits.clear();
  EXPECT_THROW(check(dropped), ScheduleError);
  Schedule partial = s;
  partial.streams[0].pop_back();
  for (auto& stream : partial.streams)
    for (auto& l : stream) std::erase(l.waits, s.streams[0].back().node);
  EXPECT_THROW(check(partial), ScheduleError);
  EXPECT_NO_THROW(check(partial, false));  // a stage being timed: the missing kernel counts as done
}

TEST(Planning, PartialSchedulesPinWhatTheyDoNotWrite) {
  Graph<> g = branchy(2);
  auto lg = lower(g, nullptr);
  KernelDag dag(g);
  std::vector<std::vector<NodeId>> half(1);
  for (std::size_t k = dag.size() / 2; k < dag.size(); ++k) half[0].push_back(dag.node(k));
  Schedule s = insert_waits(dag, half, false);
  HappensBefore hb(lg->id_bound);
  hb.build(s);
  MemoryPlan m = plan_memory(*lg, hb, true);
  // Every buffer the scheduled half reads but the other half writes keeps its own bytes.
  std::size_t pinned = 0;
  for (auto const& r : m.requests) pinned += r.pinned;
  EXPECT_GT(pinned, lg->outputs.size());
}

}  // namespace
}  // namespace autograph::cuda
