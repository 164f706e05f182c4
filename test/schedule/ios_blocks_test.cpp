// IOS's blocks: natural cuts where few values cross, before any cut along levels; the
// caller's own boundaries (cut_after); and, disabled by default, the measurement of both on
// IOS's networks (run with --gtest_also_run_disabled_tests).
#include <autograph/graph/builder.hpp>
#include <autograph/models/inception_v3.hpp>
#include <autograph/models/nasnet.hpp>
#include <autograph/models/randwire.hpp>
#include <autograph/models/squeezenet.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/ios.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>

#include "random_dag.hpp"

namespace autograph {
namespace {

using schedule::detail::Mask;

/// A stem, then `n` cells, each reading the previous two cells' outputs as a NASNet cell does;
/// `ends` gets each cell's last node.
Graph<> chained_cells(int n, std::vector<NodeId>& ends) {
  GraphBuilder b;
  auto stem = b.conv2d(b.input("x", {1, 16, 14, 14}), 16, {3, 3});
  Value prev = stem, last = stem;
  for (int i = 0; i < n; ++i) {
    auto x = b.relu(last), y = b.relu(prev);
    auto p = b.conv2d(b.conv2d(x, 16, {3, 3}), 16, {1, 1});
    auto q = b.conv2d(b.conv2d(y, 16, {3, 3}), 16, {1, 1});
    auto r = b.add(b.conv2d(y, 16, {1, 1}), b.max_pool(x, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}));
    auto out = b.add(b.add(p, q), r);
    ends.push_back(out.node);
    prev = last;
    last = out;
  }
  return std::move(b).build({last});
}

/// DP states of the kernels [from, to) of `dag`.
std::size_t states(KernelDag const& dag, std::size_t from, std::size_t to) {
  std::vector<Mask> pred(to - from, 0);
  for (std::size_t k = from; k < to; ++k)
    for (std::uint32_t p : dag.preds(k))
      if (p >= from) pred[k - from] |= Mask{1} << (p - from);
  return schedule::detail::count_states(pred, std::numeric_limits<std::size_t>::max());
}

TEST(IosBlocks, LiveValuesCountEveryKernelReadLater) {
  std::vector<NodeId> ends;
  auto g = chained_cells(3, ends);
  KernelDag dag(g);
  auto live = schedule::detail::live_across(dag);
  ASSERT_EQ(live.size(), dag.size() + 1);
  EXPECT_EQ(live.front(), 0u);
  EXPECT_EQ(live.back(), 0u);
  EXPECT_EQ(live[1], 1u);  // after the stem: the stem alone
  for (std::size_t c = 0; c + 1 < ends.size(); ++c) EXPECT_EQ(live[dag.index(ends[c]) + 1], 2u) << "after cell " << c;
  // Inside a cell, the cell's two inputs and at least one of its own values cross.
  for (std::size_t p = dag.index(ends[0]) + 2; p <= dag.index(ends[1]); ++p) EXPECT_GE(live[p], 3u) << "position " << p;
}

TEST(IosBlocks, OversizedBlocksAreCutExactlyAtCellBoundaries) {
  SimulatedRuntime<> rt;
  std::vector<NodeId> ends;
  auto g = chained_cells(6, ends);
  KernelDag dag(g);
  std::size_t cell = dag.index(ends[1]) - dag.index(ends[0]);
  // The limit on DP states admits any one cell, no two; the limit on kernels never decides.
  std::size_t one = 0, two = std::numeric_limits<std::size_t>::max();
  for (std::size_t from = 1; from < dag.size(); from += cell) {
    one = std::max(one, states(dag, from, from + cell));
    if (from + 2 * cell <= dag.size()) two = std::min(two, states(dag, from, from + 2 * cell));
  }
  ASSERT_LT(one, two);
  ASSERT_LE(2 * cell, 64u);
  schedule::IosOptions limits{.max_block_states = one};

  auto natural = schedule::Ios{limits}.run(g, rt);
  std::vector<std::size_t> per_cell(7, cell);
  per_cell[0] = 1;  // the stem, a single-node cut
  EXPECT_EQ(natural.block_kernels, per_cell);
  EXPECT_EQ(natural.stats.natural_cuts, 5u);
  EXPECT_EQ(natural.stats.level_splits, 0u);

  auto hand = schedule::Ios{{.max_block_states = one, .natural_cuts = false, .cut_after = ends}}.run(g, rt);
  EXPECT_EQ(hand.block_kernels, per_cell);
  EXPECT_EQ(hand.stats.natural_cuts, 0u);
  EXPECT_DOUBLE_EQ(natural.stats.estimated_ms, hand.stats.estimated_ms);

  // Without natural cuts the block is cut along levels, across cells, and loses.
  auto levels = schedule::Ios{{.max_block_states = one, .natural_cuts = false}}.run(g, rt);
  EXPECT_EQ(levels.stats.level_splits, 1u);
  EXPECT_NE(levels.block_kernels, per_cell);
  EXPECT_GT(levels.stats.estimated_ms, natural.stats.estimated_ms);
  for (auto const* r : {&natural, &hand, &levels}) {
    KernelDag lowered(r->graph);
    EXPECT_NO_THROW(check_schedule(lowered, r->schedule));
  }
}

TEST(IosBlocks, WithoutNaturalBoundariesBlocksAreCutAlongLevels) {
  // Three chains advanced in lockstep: every position is crossed by three values.
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 14, 14});
  std::vector<Value> tips(3, b.conv2d(x, 16, {1, 1}));
  for (int step = 0; step < 10; ++step)
    for (auto& t : tips) t = b.conv2d(t, 16, {3, 3});
  auto g = std::move(b).build({b.concat(tips)});
  SimulatedRuntime<> rt;
  auto r = schedule::Ios{{.max_block_kernels = 16}}.run(g, rt);
  EXPECT_EQ(r.stats.natural_cuts, 0u);
  EXPECT_EQ(r.stats.level_splits, 1u);
  EXPECT_GE(r.block_kernels.size(), 3u);
  for (std::size_t k : r.block_kernels) EXPECT_LE(k, 16u);
  KernelDag dag(r.graph);
  EXPECT_NO_THROW(check_schedule(dag, r.schedule));
}

TEST(IosBlocks, NaturalCutsNeverLoseToLevelCuts) {
  // Either plan may win; the planner keeps the better one, block by block.
  SimulatedRuntime<> rt;
  std::size_t natural_kept = 0, rejected = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto g = test::random_dag(seed, {.kernels = 40, .window = 3});
    schedule::IosOptions o{.split_at_cuts = false, .max_block_kernels = 12};
    auto natural = schedule::Ios{o}.run(g, rt);
    o.natural_cuts = false;
    auto levels = schedule::Ios{o}.run(g, rt);
    EXPECT_LE(natural.stats.estimated_ms, levels.stats.estimated_ms + 1e-12) << "seed " << seed;
    EXPECT_EQ(natural.stats.natural_cuts > 0, natural.stats.estimated_ms < levels.stats.estimated_ms) << "seed " << seed;
    if (natural.stats.natural_plans_rejected > 0) {
      EXPECT_DOUBLE_EQ(natural.stats.estimated_ms, levels.stats.estimated_ms);
    }
    EXPECT_GE(natural.stats.stages_measured, levels.stats.stages_measured);
    KernelDag dag(natural.graph);
    EXPECT_NO_THROW(check_schedule(dag, natural.schedule));
    natural_kept += natural.stats.natural_cuts > 0;
    rejected += natural.stats.natural_plans_rejected;
  }
  EXPECT_GT(natural_kept, 0u);
  EXPECT_GT(rejected, 0u);
}

TEST(IosBlocks, CutAfterMustNameKernels) {
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 14, 14});
  auto y = b.conv2d(b.relu(x), 16, {3, 3});
  auto g = std::move(b).build({y});
  SimulatedRuntime<> rt;
  try {
    schedule::Ios{{.cut_after = {x.node}}}.run(g, rt);
    FAIL() << "an input launches no kernel";
  } catch (ScheduleError const& e) {
    EXPECT_NE(std::string(e.what()).find("launches no kernel"), std::string::npos) << e.what();
  }
  EXPECT_THROW(schedule::Ios{{.cut_after = {NodeId{1000}}}}.run(g, rt), ScheduleError);
  auto r = schedule::Ios{{.cut_after = {y.node}}}.run(g, rt);  // the last kernel: no new block
  EXPECT_EQ(r.stats.blocks, 2u);                               // the relu and the conv: single-node cuts
}

/// IOS's own block boundaries: its models cut NASNet per cell and RandWire per stage, which
/// the zoo's node names give as their first scope ("cell_3/...", "conv4/..."); Inception-v3
/// per module the same way.
std::vector<NodeId> scope_ends(Graph<> const& g) {
  KernelDag dag(g);
  auto scope = [&](std::size_t k) {
    auto const& name = g[dag.node(k)].name;
    auto slash = name.find('/');
    return slash == std::string::npos ? std::string() : name.substr(0, slash);
  };
  std::vector<NodeId> ends;
  for (std::size_t k = 0; k + 1 < dag.size(); ++k)
    if (scope(k) != scope(k + 1)) ends.push_back(dag.node(k));
  return ends;
}

TEST(IosBlocks, DISABLED_MeasureObjectiveOnIosNetworks) {
  SimulatedRuntime<> rt;
  std::pair<char const*, Graph<>> nets[] = {{"nasnet_a_large", models::nasnet_a_large()}, {"nasnet_a_mobile", models::nasnet_a_mobile()},
                                            {"randwire_ws", models::randwire_ws()},       {"inception_v3", models::inception_v3()},
                                            {"squeezenet1_1", models::squeezenet1_1()}};
  // IOS's defaults, and the caps the CPU benchmark runs IOS under (r = 2, s = 2, 300 states).
  schedule::IosOptions const configs[] = {{}, {.max_group_kernels = 2, .max_groups = 2, .max_block_states = 300}};
  std::printf("%-16s %-8s %-22s %12s %7s %8s %9s %7s %9s\n", "model", "limits", "blocks", "objective ms", "blocks", "natural", "rejected",
              "levels", "search s");
  for (auto const& [name, g] : nets) {
    auto ends = scope_ends(g);
    for (std::size_t c = 0; c < std::size(configs); ++c) {
      auto with = [&](bool natural, bool hand) {
        auto o = configs[c];
        o.natural_cuts = natural;
        if (hand) o.cut_after = ends;
        return o;
      };
      std::pair<char const*, schedule::IosOptions> variants[] = {{"level splits (before)", with(false, false)},
                                                                 {"natural cuts (after)", with(true, false)},
                                                                 {"IOS's boundaries", with(false, true)}};
      for (auto const& [what, o] : variants) {
        auto r = schedule::Ios{o}.run(g, rt);
        std::printf("%-16s %-8s %-22s %12.4f %7zu %8zu %9zu %7zu %9.2f\n", name, c == 0 ? "default" : "cpu-cap", what, r.stats.estimated_ms,
                    r.stats.blocks, r.stats.natural_cuts, r.stats.natural_plans_rejected, r.stats.level_splits, r.stats.search_seconds);
      }
    }
  }
}

}  // namespace
}  // namespace autograph
