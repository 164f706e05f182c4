// Nimble's stream assignment on random DAGs: every stream a chain, every dependency enforced,
// no wait implied by the others, streams never fewer than the width.
#include <autograph/graph/builder.hpp>
#include <autograph/schedule/nimble.hpp>
#include <gtest/gtest.h>

#include "random_dag.hpp"

namespace autograph {
namespace {

/// Consecutive kernels of every stream are joined by a path: two kernels that could run
/// concurrently never share a stream.
void expect_chains(KernelDag const& dag, Schedule const& s) {
  for (auto const& stream : s.streams)
    for (std::size_t i = 1; i < stream.size(); ++i)
      EXPECT_TRUE(dag.reaches(dag.index(stream[i - 1].node), dag.index(stream[i].node)))
          << "nodes " << stream[i - 1].node << " and " << stream[i].node << " share a stream but are independent";
}

TEST(Nimble, RandomDagsGetChainStreamsAndExactlyTheNecessaryWaits) {
  for (std::uint64_t seed = 0; seed < 80; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 4 + seed % 24, .window = seed % 2 ? 0u : 5u});
    KernelDag dag(g);
    auto s = schedule::nimble(dag);
    ASSERT_NO_THROW(check_schedule(dag, s)) << "seed " << seed;
    expect_chains(dag, s);
    EXPECT_GE(s.num_streams(), dag.width()) << "seed " << seed;
    EXPECT_TRUE(test::brute_enforced(dag, s)) << "seed " << seed;
    if (dag.size() <= 16) {
      EXPECT_TRUE(test::no_redundant_wait(dag, s)) << "seed " << seed;
    }
  }
}

TEST(Nimble, TransitiveReductionDropsImpliedEdges) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a = b.relu(x), c = b.relu(a);
  auto d = b.add(a, c);  // a -> d is implied by a -> c -> d
  auto g = std::move(b).build({d});
  KernelDag dag(g);
  auto reduced = schedule::transitive_reduction(dag);
  EXPECT_EQ(reduced[dag.index(a.node)], std::vector<std::uint32_t>{dag.index(c.node)});
  EXPECT_EQ(reduced[dag.index(c.node)], std::vector<std::uint32_t>{dag.index(d.node)});
}

TEST(Nimble, ChainsThatFollowEachOtherShareAStream) {
  // x -> {p, q} -> r -> {s, t}: the matching alone leaves three chains (p r s, q, t); the
  // second matching appends t after q (q reaches t), so two streams — the width.
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto p = b.relu(x), q = b.sigmoid(x);
  auto r = b.add(p, q);
  auto s = b.relu(r), t = b.sigmoid(r);
  auto g = std::move(b).build({s, t});
  KernelDag dag(g);
  EXPECT_EQ(dag.width(), 2u);
  auto sch = schedule::nimble(dag);
  EXPECT_EQ(sch.num_streams(), 2u);
  expect_chains(dag, sch);
  EXPECT_EQ(sch.num_waits(), 2u);  // r waits for the other branch; the other of s, t waits for r
}

TEST(Nimble, AnInceptionStyleBlockRunsEachBranchOnItsOwnStream) {
  GraphBuilder b;
  auto x = b.input("x", {1, 32, 17, 17});
  auto b1 = b.conv2d(x, 32, {1, 1});
  auto b2 = b.conv2d(b.conv2d(x, 16, {1, 1}), 32, {3, 3});
  auto b3 = b.conv2d(b.conv2d(b.conv2d(x, 16, {1, 1}), 32, {3, 3}), 32, {3, 3});
  auto b4 = b.conv2d(b.avg_pool(x, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}), 32, {1, 1});
  auto g = std::move(b).build({b.concat({b1, b2, b3, b4})});
  KernelDag dag(g);
  auto s = schedule::nimble(dag);
  EXPECT_EQ(dag.width(), 4u);
  EXPECT_EQ(s.num_streams(), 4u);
  EXPECT_EQ(s.num_waits(), 3u);  // the concat waits for the three branches not on its stream
  EXPECT_NO_THROW(check_schedule(dag, s));
}

}  // namespace
}  // namespace autograph
