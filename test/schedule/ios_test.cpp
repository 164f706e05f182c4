// IOS: the ending enumeration against brute force, the DP against exhaustive search over
// every stage sequence, blocks and budgets, and the lowering to one schedule.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/ios.hpp>
#include <gtest/gtest.h>

#include <bit>
#include <limits>

#include "random_dag.hpp"

namespace autograph {
namespace {

using schedule::detail::Mask;

struct BlockMasks {
  std::vector<Mask> succ, pred, desc;
  explicit BlockMasks(KernelDag const& dag) : succ(dag.size(), 0), pred(dag.size(), 0), desc(dag.size(), 0) {
    for (std::size_t i = 0; i < dag.size(); ++i) {
      for (std::uint32_t j : dag.succs(i)) {
        succ[i] |= Mask{1} << j;
        pred[j] |= Mask{1} << i;
      }
      for (std::size_t j = 0; j < dag.size(); ++j)
        if (dag.reaches(i, j)) desc[i] |= Mask{1} << j;
    }
  }
  bool down_closed(Mask s) const {
    for (std::size_t i = 0; i < succ.size(); ++i)
      if ((s >> i & 1) && (pred[i] & ~s)) return false;
    return true;
  }
  /// E can run last among S: every successor within S of a kernel of E is in E.
  bool ending(Mask e, Mask s) const {
    for (std::size_t i = 0; i < succ.size(); ++i)
      if ((e >> i & 1) && (succ[i] & s & ~e)) return false;
    return true;
  }
  bool fits(Mask e, std::size_t r, std::size_t s) const {
    auto groups = schedule::detail::components(e, succ, pred);
    return groups.size() <= s && std::ranges::all_of(groups, [&](Mask g) { return static_cast<std::size_t>(std::popcount(g)) <= r; });
  }
  std::vector<Mask> brute_endings(Mask s, std::size_t r, std::size_t groups) const {
    std::vector<Mask> out;
    for (Mask e = s; e; e = (e - 1) & s)
      if (ending(e, s) && fits(e, r, groups)) out.push_back(e);
    std::ranges::sort(out);
    return out;
  }
};

TEST(IosEndings, EqualBruteForceForEveryStateOfRandomDags) {
  for (std::uint64_t seed = 0; seed < 25; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 6 + seed % 6, .window = seed % 2 ? 0u : 4u});
    KernelDag dag(g);
    BlockMasks m(dag);
    for (auto [r, s] : {std::pair<std::size_t, std::size_t>{64, 64}, {3, 8}, {2, 2}, {1, 3}}) {
      schedule::detail::IosBlockDp dp(m.succ, m.pred, m.desc, r, s, 1, {});
      for (Mask state = 1; state < (Mask{1} << dag.size()); ++state) {
        if (!m.down_closed(state)) continue;
        auto ours = dp.endings(state);
        std::ranges::sort(ours);
        ASSERT_EQ(ours, m.brute_endings(state, r, s)) << "seed " << seed << " r " << r << " s " << s << " state " << state;
      }
    }
  }
}

TEST(IosEndings, IncludeGroupsWhoseReachableSetsOverlap) {
  // The graph of mit-han-lab/inter-operator-scheduler issue #10: the published code never
  // tries the stage {v2, v3, v5, out}, one group of four joined only through `out`.
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 8, 8});
  auto v1 = b.conv2d(x, 8, {3, 3}), v2 = b.conv2d(x, 8, {3, 3}), v3 = b.conv2d(x, 8, {3, 3}), v4 = b.conv2d(x, 8, {3, 3});
  auto v5 = b.add(v1, v2);
  auto out = b.concat({v5, v2, v3, v4});
  auto g = std::move(b).build({out});
  KernelDag dag(g);
  BlockMasks m(dag);
  schedule::detail::IosBlockDp dp(m.succ, m.pred, m.desc, 4, 8, 1, {});
  Mask want = 0;
  for (Value v : {v2, v3, v5, out}) want |= Mask{1} << dag.index(v.node);
  auto endings = dp.endings(dp.full());
  EXPECT_NE(std::ranges::find(endings, want), endings.end());
}

/// Exhaustive search over every sequence of stages, each stage any ending within the bounds,
/// costed as IOS costs a concurrent stage (each group on its own stream, measured alone).
struct Exhaustive {
  KernelDag const& dag;
  BlockMasks masks;
  SimulatedRuntime<>::Prepared<BuiltinOps> prepared;
  double base;
  std::size_t r, s;
  std::map<Mask, double> stage_ms;

  Exhaustive(KernelDag const& d, SimulatedRuntime<> const& rt, Graph<> const& g, std::size_t r_, std::size_t s_)
      : dag(d), masks(d), prepared(rt.prepare(g)), base(prepared.measure(Schedule{})), r(r_), s(s_) {}

  double stage(Mask e) {
    if (auto it = stage_ms.find(e); it != stage_ms.end()) return it->second;
    std::vector<NodeId> nodes;
    for (std::size_t i = 0; i < dag.size(); ++i)
      if (e >> i & 1) nodes.push_back(dag.node(i));
    return stage_ms[e] = schedule::stage_latency(prepared.measure(schedule::stage_schedule(schedule::stage_groups(dag, nodes))), base);
  }
  double best(Mask state) {  // no memo over states: every sequence is tried
    if (state == 0) return 0;
    double b = std::numeric_limits<double>::infinity();
    for (Mask e = state; e; e = (e - 1) & state)
      if (masks.ending(e, state) && masks.fits(e, r, s)) b = std::min(b, stage(e) + best(state & ~e));
    return b;
  }
};

TEST(Ios, TheDpEqualsExhaustiveSearch) {
  SimulatedRuntime<> rt;
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 5 + seed % 3, .window = seed % 2 ? 0u : 4u});
    KernelDag dag(g);
    for (bool prune : {false, true}) {
      schedule::IosOptions o{.max_group_kernels = 2, .max_groups = 2, .prune = prune, .operator_merge = false, .split_at_cuts = false};
      auto result = schedule::Ios{o}.run(g, rt);
      Exhaustive oracle(dag, rt, g, prune ? 2 : 64, prune ? 2 : 64);
      double exhaustive = oracle.best((Mask{1} << dag.size()) - 1);
      EXPECT_NEAR(result.stats.estimated_ms, exhaustive, 1e-12) << "seed " << seed << " prune " << prune;
      double stages = 0;
      for (auto const& st : result.stages) stages += st.latency_ms;
      EXPECT_NEAR(stages, result.stats.estimated_ms, 1e-12);
      EXPECT_EQ(result.stats.blocks, 1u);
    }
  }
}

TEST(Ios, SchedulesEveryKernelOnceWithEveryDependencyEnforced) {
  SimulatedRuntime<> rt;
  for (std::uint64_t seed = 20; seed < 35; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 10 + seed % 20});
    auto result = schedule::Ios{}.run(g, rt);
    KernelDag dag(result.graph);
    ASSERT_NO_THROW(check_schedule(dag, result.schedule)) << "seed " << seed;
    EXPECT_TRUE(test::brute_enforced(dag, result.schedule));
    std::size_t staged = 0;
    for (auto const& st : result.stages) {
      EXPECT_LE(st.groups.size(), 8u);
      for (auto const& grp : st.groups) {
        staged += grp.size();
        if (st.kind == schedule::IosStage::Kind::concurrent) {
          EXPECT_LE(grp.size(), 3u);
        }
      }
    }
    EXPECT_EQ(staged, dag.size());
    // Running each kernel alone, one after another, is one of the stage sequences the DP weighs.
    auto prepared = rt.prepare(g);
    double base = prepared.measure(Schedule{}), one_by_one = 0;
    KernelDag original(g);
    for (NodeId id : original.nodes()) one_by_one += prepared.measure(Schedule{{{{id, {}}}}}) - base;
    EXPECT_LE(result.stats.estimated_ms, one_by_one + 1e-12);
  }
}

Graph<> modules(int n) {
  // n inception-style modules in a row: each module's concat is a single-node cut.
  GraphBuilder b;
  auto x = b.input("x", {1, 32, 14, 14});
  for (int i = 0; i < n; ++i) {
    auto p = b.relu(b.conv2d(x, 8, {1, 1}));
    auto q = b.relu(b.conv2d(b.conv2d(x, 8, {1, 1}), 8, {3, 3}));
    auto r = b.conv2d(b.max_pool(x, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}), 16, {1, 1});
    x = b.concat({p, q, r});
  }
  return std::move(b).build({x});
}

TEST(Ios, SchedulesBlockByBlockBetweenSingleNodeCuts) {
  SimulatedRuntime<> rt;
  auto g = modules(5);
  auto split = schedule::Ios{}.run(g, rt);
  EXPECT_EQ(split.stats.blocks, 5u);  // each module's kernels end at its concat
  EXPECT_EQ(split.stats.level_splits + split.stats.budget_splits, 0u);
  auto whole = schedule::Ios{{.split_at_cuts = false, .max_block_kernels = 64, .block_budget = 50'000'000}}.run(g, rt);
  EXPECT_EQ(whole.stats.blocks, 1u);
  // A stage never spans a cut usefully (the cut runs alone), so both find the same optimum.
  EXPECT_NEAR(split.stats.estimated_ms, whole.stats.estimated_ms, 1e-12);
  EXPECT_LT(split.stats.transitions, whole.stats.transitions);
}

TEST(Ios, LargeOrExpensiveBlocksAreCutAndSaySo) {
  SimulatedRuntime<> rt;
  auto g = test::random_dag(3, {.kernels = 60, .window = 0});
  auto small = schedule::Ios{{.split_at_cuts = false, .max_block_kernels = 16}}.run(g, rt);
  EXPECT_GE(small.stats.level_splits, 1u);
  EXPECT_GE(small.stats.blocks, 4u);
  auto budget = schedule::Ios{{.split_at_cuts = false, .max_block_kernels = 20, .block_budget = 50}}.run(g, rt);
  EXPECT_GE(budget.stats.budget_splits, 1u);
  for (auto const* r : {&small, &budget}) {
    KernelDag dag(r->graph);
    EXPECT_NO_THROW(check_schedule(dag, r->schedule));
  }
  EXPECT_THROW(schedule::Ios({.max_block_kernels = 65}).run(g, rt), ScheduleError);
  EXPECT_THROW(schedule::Ios({.block_budget = 0}).run(g, rt), ScheduleError);
}

TEST(Ios, StageLatenciesAreNeverNegative) {
  EXPECT_DOUBLE_EQ(schedule::stage_latency(1.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(schedule::stage_latency(0.9, 1.0), 0.0);
  // Measurement noise: every run with kernels times faster than the empty run the stage
  // costs are measured against. Unclamped, every stage (and every merge) would be worth
  // -0.1 ms, and the sum of the stages below 0.
  auto g = modules(2);
  auto noisy = schedule::IosPrepare<BuiltinOps>([](Graph<> const&) {
    return std::function<double(Schedule const&)>([](Schedule const& s) { return s.num_kernels() == 0 ? 1.0 : 0.9; });
  });
  auto r = schedule::Ios{}.run_with(g, noisy);
  EXPECT_FALSE(r.stages.empty());
  for (auto const& st : r.stages) EXPECT_GE(st.latency_ms, 0.0);
  EXPECT_DOUBLE_EQ(r.stats.estimated_ms, 0.0);
  EXPECT_EQ(r.stats.merges, 0u);  // a merge that measures no faster than 0 is not taken
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
}

TEST(Ios, StagesLowerToStreamsWithEventsNotBarriers) {
  SimulatedRuntime<> rt;
  auto g = modules(3);
  auto r = schedule::Ios{}.run(g, rt);
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
  EXPECT_TRUE(test::no_redundant_wait(dag, r.schedule));
  std::size_t widest = 0;
  for (auto const& st : r.stages) widest = std::max(widest, st.groups.size());
  EXPECT_EQ(r.schedule.num_streams(), widest);
  // As a policy of the runtime: the same schedule, and the latency of running it.
  SimulatedRuntime<devices::H100, schedule::Ios> ios_rt;
  auto sg = ios_rt.schedule(g);
  EXPECT_EQ(sg.schedule, r.schedule);
  EXPECT_EQ(sg.policy, "ios");
  EXPECT_DOUBLE_EQ(ios_rt.measure(g), rt.measure(r.graph, r.schedule));
}

}  // namespace
}  // namespace autograph
