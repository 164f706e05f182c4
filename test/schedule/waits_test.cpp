// Minimal waits and the schedule check: hand-worked cases, then random stream assignments
// checked against a brute-force happens-before oracle.
#include <autograph/graph/builder.hpp>
#include <autograph/schedule/waits.hpp>
#include <gtest/gtest.h>

#include <random>

#include "random_dag.hpp"

namespace autograph {
namespace {

using test::brute_enforced;
using test::no_redundant_wait;

std::vector<NodeId> waits_of(Schedule const& s, NodeId id) {
  for (auto const& stream : s.streams)
    for (auto const& l : stream)
      if (l.node == id) return l.waits;
  ADD_FAILURE() << "node " << id << " is not scheduled";
  return {};
}

TEST(InsertWaits, WaitsOnlyForTheLatestProducerOfAStream) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a1 = b.relu(x), a2 = b.relu(a1), a3 = b.relu(a2);
  auto b1 = b.add(a1, a3);
  auto g = std::move(b).build({b1});
  KernelDag dag(g);
  auto s = insert_waits(dag, {{a1.node, a2.node, a3.node}, {b1.node}});
  EXPECT_EQ(waits_of(s, b1.node), std::vector<NodeId>{a3.node});  // a3 done implies a1 done
  EXPECT_NO_THROW(check_schedule(dag, s));
}

TEST(InsertWaits, AnEarlierWaitOnTheSameStreamImpliesLaterOnes) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a1 = b.relu(x), a2 = b.relu(a1);
  auto b1 = b.sigmoid(a2);
  auto b2 = b.add(b1, a1);
  auto g = std::move(b).build({b2});
  KernelDag dag(g);
  auto s = insert_waits(dag, {{a1.node, a2.node}, {b1.node, b2.node}});
  EXPECT_EQ(waits_of(s, b1.node), std::vector<NodeId>{a2.node});
  EXPECT_TRUE(waits_of(s, b2.node).empty());  // b1 waited for a2, which came after a1
  EXPECT_EQ(s.num_waits(), 1u);
}

TEST(InsertWaits, WaitsImplyThroughAThirdStream) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a1 = b.relu(x);
  auto c1 = b.sigmoid(a1);
  auto b1 = b.add(c1, a1);
  auto g = std::move(b).build({b1});
  KernelDag dag(g);
  auto s = insert_waits(dag, {{a1.node}, {b1.node}, {c1.node}});
  EXPECT_EQ(waits_of(s, b1.node), std::vector<NodeId>{c1.node});
  EXPECT_EQ(waits_of(s, c1.node), std::vector<NodeId>{a1.node});
}

TEST(InsertWaits, RejectsStreamsThatRunAKernelBeforeItsProducer) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a = b.relu(x), c = b.relu(a);
  auto g = std::move(b).build({c});
  KernelDag dag(g);
  EXPECT_THROW(insert_waits(dag, {{c.node, a.node}}), ScheduleError);
  EXPECT_THROW(insert_waits(dag, {{a.node}}), ScheduleError);                   // c on no stream
  EXPECT_THROW(insert_waits(dag, {{a.node, c.node}, {a.node}}), ScheduleError);  // a twice
  EXPECT_THROW(insert_waits(dag, {{x.node, a.node, c.node}}), ScheduleError);    // an input is no kernel
  EXPECT_NO_THROW(insert_waits(dag, {{c.node}}, /*complete=*/false));
}

TEST(CheckSchedule, FindsUnenforcedDependenciesDeadlocksAndMissingKernels) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4});
  auto a1 = b.relu(x), a2 = b.relu(a1);
  auto b1 = b.sigmoid(a1);
  auto g = std::move(b).build({a2, b1});
  KernelDag dag(g);
  Schedule ok{{{{a1.node, {}}, {a2.node, {}}}, {{b1.node, {a1.node}}}}};
  EXPECT_EQ(check_schedule(dag, ok).waits, 1u);
  Schedule racy{{{{a1.node, {}}, {a2.node, {}}}, {{b1.node, {}}}}};
  EXPECT_THROW(check_schedule(dag, racy), ScheduleError);
  Schedule deadlock{{{{a1.node, {b1.node}}, {a2.node, {}}}, {{b1.node, {a2.node}}}}};
  EXPECT_THROW(check_schedule(dag, deadlock), ScheduleError);
  Schedule own_stream{{{{a1.node, {}}, {a2.node, {a1.node}}}, {{b1.node, {a1.node}}}}};
  EXPECT_THROW(check_schedule(dag, own_stream), ScheduleError);
  Schedule missing{{{{a1.node, {}}, {a2.node, {}}}}};
  EXPECT_THROW(check_schedule(dag, missing), ScheduleError);
  EXPECT_NO_THROW(check_schedule(dag, missing, /*complete=*/false));
  Schedule twice{{{{a1.node, {}}, {a2.node, {}}}, {{b1.node, {a1.node}}, {a2.node, {}}}}};
  EXPECT_THROW(check_schedule(dag, twice), ScheduleError);
}

TEST(InsertWaits, RandomStreamAssignmentsGetExactlyTheNecessaryWaits) {
  std::size_t ours = 0, every_producer = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 6 + seed % 8});
    KernelDag dag(g);
    std::mt19937_64 rng(seed);
    std::size_t k = 2 + seed % 3;
    std::vector<std::vector<NodeId>> streams(k);
    std::vector<std::size_t> stream_of(dag.size());
    for (std::size_t i = 0; i < dag.size(); ++i) {
      stream_of[i] = rng() % k;
      streams[stream_of[i]].push_back(dag.node(i));
    }
    auto s = insert_waits(dag, streams);
    ASSERT_NO_THROW(check_schedule(dag, s)) << "seed " << seed;
    EXPECT_TRUE(brute_enforced(dag, s)) << "seed " << seed;
    EXPECT_TRUE(no_redundant_wait(dag, s)) << "seed " << seed;
    ours += s.num_waits();
    for (std::size_t i = 0; i < dag.size(); ++i)
      for (std::uint32_t p : dag.preds(i)) every_producer += stream_of[p] != stream_of[i];
  }
  EXPECT_LT(ours, every_producer);
}

TEST(HappensBefore, AgreesWithTheBruteForceOracle) {
  for (std::uint64_t seed = 100; seed < 130; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 10});
    KernelDag dag(g);
    std::mt19937_64 rng(seed);
    std::vector<std::vector<NodeId>> streams(3);
    for (std::size_t i = 0; i < dag.size(); ++i) streams[rng() % 3].push_back(dag.node(i));
    auto s = insert_waits(dag, streams);
    // Drop a random subset of waits: the clocks must still agree with the brute force.
    for (auto& st : s.streams)
      for (auto& l : st) std::erase_if(l.waits, [&](NodeId) { return rng() % 2 == 0; });
    HappensBefore hb;
    hb.build(s);
    for (NodeId p : dag.nodes())
      for (NodeId v : dag.nodes())
        if (p != v) {
          EXPECT_EQ(hb.before(p, v), test::brute_before(s, p, v)) << "seed " << seed << " " << p << " -> " << v;
        }
  }
}

}  // namespace
}  // namespace autograph
