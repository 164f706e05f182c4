#include <autograph/graph/builder.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/subgraph.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>
#include <autograph/search/partition.hpp>
#include <autograph/search/partition_dp.hpp>
#include <gtest/gtest.h>

using namespace autograph;

namespace {
/// `blocks` residual-style blocks of two parallel conv branches joined by an add.
Graph<> ladder(int blocks, std::int64_t channels = 4) {
  GraphBuilder b;
  Value v = b.input("x", {1, channels, 6, 6});
  for (int i = 0; i < blocks; ++i) {
    auto s = b.scope("block" + std::to_string(i));
    auto l = b.relu(b.conv2d(v, channels, {1, 1}));
    auto r = b.relu(b.conv2d(v, channels, {3, 3}));
    v = b.add(l, r);
  }
  return std::move(b).build({v});
}
std::size_t capacity_all(NodeId) { return 1; }
}  // namespace

TEST(Partition, SplitsToTheLowerBoundAndCoversEveryOperator) {
  auto g = ladder(30);  // 150 operators
  auto p = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 10});
  std::size_t total = 0;
  for (auto const& part : p.parts) {
    EXPECT_LE(part.size(), 10u);
    EXPECT_FALSE(part.empty());
    total += part.size();
  }
  EXPECT_EQ(total, 150u);
  for (NodeId id : g.node_ids()) {
    if (is_operator_node(g, id)) {
      EXPECT_NE(p.part_of[id], Partition::npos);
    }
  }
  ASSERT_EQ(p.beginning.size(), 1u);
  EXPECT_EQ(p.beginning[0], 0u);
}

TEST(Partition, CutsAtCheapNodes) {
  // Adds join the branches: a cut through one add separates the blocks; cutting inside a
  // block needs two nodes. With adds free and everything else expensive, every cut node is an add.
  auto g = ladder(16);
  std::vector<NodeId> cut_nodes;
  auto p = partition(g, [&](NodeId id) { return g[id].is<Add>() ? std::size_t{0} : std::size_t{50}; }, {.size_lower = 20, .merge_upper = 20});
  // Part borders: the last node of each part (in topological order) but the final one is an add.
  for (std::size_t i = 0; i + 1 < p.parts.size(); ++i) EXPECT_TRUE(g[p.parts[i].back()].is<Add>()) << g.label(p.parts[i].back());
  EXPECT_EQ(p.cut_capacity, p.parts.size() - 1);  // each cut: one add of capacity 0 + 1
}

TEST(Partition, MergesAdjacentPartsUpToTheUpperBound) {
  auto g = ladder(30);
  auto small = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 10});
  auto merged = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 40});
  EXPECT_LT(merged.parts.size(), small.parts.size());
  for (auto const& part : merged.parts) EXPECT_LE(part.size(), 40u);
  // Adjacency: consecutive parts of a chain-like graph are connected.
  for (std::size_t i = 0; i + 1 < merged.parts.size(); ++i)
    EXPECT_NE(std::ranges::find(merged.succ[i], i + 1), merged.succ[i].end());
  EXPECT_THROW(partition(g, capacity_all, {.size_lower = 50, .merge_upper = 10}), Error);
}

TEST(Subgraph, ExtractAndStitchBackComputeTheSameFunction) {
  auto g = ladder(6);
  fill_random_weights(g, 3);
  auto p = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 10});
  ASSERT_GE(p.parts.size(), 2u);
  auto sub = extract(g, p.parts[1]);
  validate(sub.graph);
  EXPECT_FALSE(sub.inputs.empty());
  EXPECT_FALSE(sub.outputs.empty());
  // Stitching the unchanged part back gives the same graph.
  Graph<> h = g;
  stitch(h, sub, sub.graph);
  validate(h);
  ReferenceExecutor<> ex;
  auto x = Tensor::random(Shape{1, 4, 6, 6}, 9);
  auto a = ex.run(g, {x}), b = ex.run(h, {x});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a[0].data().size(); ++i) EXPECT_FLOAT_EQ(a[0].data()[i], b[0].data()[i]);
  EXPECT_EQ(graph_stats(h).operators, graph_stats(g).operators);

  // Stitching a changed part: replace every Relu by a Relu(Relu(.)) pair — more nodes, same function.
  Graph<> changed = sub.graph;
  for (NodeId id : std::vector<NodeId>(changed.node_ids().begin(), changed.node_ids().end()))
    if (changed[id].is<Relu>()) {
      NodeId extra = changed.add(Relu{}, {Value{id}});
      for (Use u : std::vector<Use>(changed.users(id).begin(), changed.users(id).end()))
        if (u.node != extra) changed.set_input(u, Value{extra});
      for (std::size_t o = 0; o < changed.outputs().size(); ++o)
        if (changed.outputs()[o] == Value{id}) {
          auto outs = std::vector<Value>(changed.outputs().begin(), changed.outputs().end());
          outs[o] = Value{extra};
          changed.set_outputs(outs);
        }
    }
  Graph<> k = g;
  stitch(k, sub, changed);
  validate(k);
  EXPECT_GT(graph_stats(k).operators, graph_stats(g).operators);
  auto c = ex.run(k, {x});
  for (std::size_t i = 0; i < a[0].data().size(); ++i) EXPECT_FLOAT_EQ(a[0].data()[i], c[0].data()[i]);
}

TEST(Subgraph, StitchRejectsAMismatchedPartAndLeavesTheGraph) {
  auto g = ladder(4);
  auto p = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 10});
  auto sub = extract(g, p.parts[0]);
  Graph<> wrong = sub.graph;
  wrong.set_outputs({});
  auto h0 = structural_hash(g);
  EXPECT_THROW(stitch(g, sub, wrong), GraphError);
  EXPECT_EQ(structural_hash(g), h0);
}

TEST(PartitionDp, PicksTheCheapestChunking) {
  auto g = ladder(12);
  auto p = partition(g, capacity_all, {.size_lower = 10, .merge_upper = 10});
  ASSERT_GE(p.parts.size(), 4u);
  // Chunks of two parts are cheaper than two single parts (a rewrite across their border):
  // cost = parts in the chunk minus 0.5 per extra part.
  auto plan = partition_dp(p, [](std::vector<std::size_t> const& chunk) { return static_cast<double>(chunk.size()) - 0.5 * static_cast<double>(chunk.size() - 1); },
                           {.chunk_upper = 120, .max_growth = 3});
  std::size_t covered = 0;
  for (auto const& c : plan.chunks) covered += c.size();
  EXPECT_EQ(covered, p.parts.size());
  // Best: as many 3-part chunks as possible (each saves 1.0).
  double expected = static_cast<double>(p.parts.size()) - static_cast<double>(p.parts.size() / 3) * 1.0 -
                    (p.parts.size() % 3 == 2 ? 0.5 : 0.0);
  EXPECT_DOUBLE_EQ(plan.cost, expected);
  EXPECT_GT(plan.chunk_searches, 0u);
  // Producers come first.
  std::vector<std::size_t> taken_at(p.parts.size());
  for (std::size_t c = 0; c < plan.chunks.size(); ++c)
    for (auto i : plan.chunks[c]) taken_at[i] = c;
  for (std::size_t i = 0; i < p.parts.size(); ++i)
    for (auto j : p.succ[i]) EXPECT_LE(taken_at[i], taken_at[j]);
}

TEST(Partition, PartOrderIsTopologicalOnRealModels) {
  // Parts are listed so that every part comes after the parts it reads; the DP relies on it.
  for (auto name : {"randwire_ws", "nasnet_a_mobile", "inception_v3"}) {
    auto g = models::build(name, {.resolution = 75});
    auto p = partition(g, capacity_all);
    for (std::size_t i = 0; i < p.parts.size(); ++i)
      for (auto j : p.succ[i]) EXPECT_LT(i, j) << name << ": part " << i << " feeds part " << j;
  }
}
