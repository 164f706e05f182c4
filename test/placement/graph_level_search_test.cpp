// The graph-level search (Collage §4.3) on synthetic measurers: a cross-kernel effect the
// op-level DP cannot see (a conversion on every edge between kernels of different backends)
// is found; the single-backend incumbents seed the search and hold the place unless the search's
// winner measures faster beyond noise; every individual measured is a valid cover, and each
// genome is measured once.
#include <gtest/gtest.h>

#include <set>

#include <autograph/graph/builder.hpp>
#include <autograph/placement/graph_level_search.hpp>
#include <autograph/placement/op_level_dp.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"

namespace autograph::placement {
namespace graph_level_search_test {

constexpr std::uint32_t target = 0;  // per-op (the "library" groups are offloaded to)
constexpr std::uint32_t fusing = 1;

/// x -> 8 blocks of conv + relu, a softmax between blocks (which only the per-op backend runs).
/// Convs 1 and 5 are expensive on the target.
struct Chain {
  Graph<> g;
  std::set<std::string> expensive;
  Chain() {
    GraphBuilder b;
    Value v = b.input("x", {1, 4, 8, 8});
    for (int i = 0; i < 8; ++i) {
      std::string name = "conv" + std::to_string(i);
      v = b.relu(b.conv2d(v, 4, {3, 3}, {}, name));
      if (i == 1 || i == 5) expensive.insert(name);
      if (i < 7) v = b.softmax(v, 1);
    }
    g = std::move(b).build({v});
  }
};

struct ChainPlacement {
  Chain chain;
  GraphFacts<BuiltinOps> facts{chain.g};
  std::vector<Candidate> cands;
  std::vector<double> cost;
  Placement start;
  ChainPlacement() {
    cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
    auto const& g = chain.g;
    for (auto const& c : cands) {
      double x = 0;
      for (NodeId n : c.group.nodes) {
        if (g[n].is<Conv2D>()) x += c.backend == target && chain.expensive.contains(g[n].name) ? 3.0 : 1.0;
        else if (c.backend == target) x += g[n].is<Relu>() ? 0.3 : 0.2;  // fused into the conv on the fusing backend
      }
      cost.push_back(x);
    }
    auto by_index = [&](Candidate const& c) { return cost[static_cast<std::size_t>(&c - cands.data())]; };
    start = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "fusing"}, by_index);
  }
  /// Sum of the groups' costs plus `conversion` per edge between groups of different backends;
  /// checks that `p` is a cover in an order where producers come first.
  double measure(Placement const& p, double conversion) const {
    auto const& g = chain.g;
    std::vector<int> group_of(g.id_bound(), -1);
    double t = 0;
    for (std::size_t i = 0; i < p.groups.size(); ++i) {
      t += p.groups[i].cost;
      for (NodeId n : p.groups[i].group.nodes) {
        EXPECT_EQ(group_of[n], -1) << g.label(n) << " is in two groups";
        group_of[n] = static_cast<int>(i);
      }
    }
    for (NodeId n : facts.placed_nodes()) {
      EXPECT_GE(group_of[n], 0) << g.label(n) << " is not placed";
      for (Value in : g[n].inputs) {
        if (!facts.placed(in.node) || group_of[in.node] == group_of[n]) continue;
        EXPECT_LT(group_of[in.node], group_of[n]) << g.label(n) << " runs before its producer";
        if (p.groups[group_of[in.node]].backend != p.groups[group_of[n]].backend) t += conversion;
      }
    }
    return t;
  }
};

/// A fake runtime's comparison: `challenger` faster beyond a 1% noise margin.
Comparison compared(double incumbent, double challenger) {
  return {.incumbent_ms = incumbent, .challenger_ms = challenger, .margin_ms = incumbent * 0.01, .faster = challenger < incumbent * 0.99, .runs = 5};
}

TEST(GraphLevelSearch, FindsTheCrossKernelEffectTheDpCannotSee) {
  ChainPlacement s;
  auto const& g = s.chain.g;
  for (auto const& pg : s.start.groups) {  // the DP fuses every conv on the fusing backend
    if (g[pg.group.nodes[0]].is<Conv2D>()) {
      EXPECT_EQ(pg.backend, fusing) << g.label(pg.group.nodes[0]);
    }
  }
  auto measure = [&](Placement const& p) { return s.measure(p, 0.5); };
  auto judge = [&](Placement const& a, Placement const& b) { return compared(measure(a), measure(b)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start, {}, measure, judge,
                              {.target = target, .budget_seconds = 5});
  EXPECT_EQ(r.digits, 8u);
  EXPECT_EQ(r.kept, "graph-level search");
  // The best: the two expensive convs stay fused on the fusing backend (two conversions each
  // cost less than 2.3 more on the target), every other block is offloaded (1.3 < 1 + 2 x 0.5).
  for (auto const& pg : r.placement.groups) {
    for (NodeId n : pg.group.nodes) {
      if (g[n].is<Conv2D>()) {
        EXPECT_EQ(pg.backend, s.chain.expensive.contains(g[n].name) ? fusing : target) << g.label(n);
      }
    }
  }
  EXPECT_LT(measure(r.placement), measure(s.start) - 1.0);
  EXPECT_DOUBLE_EQ(r.placement.cost, measure(r.placement));
}

TEST(GraphLevelSearch, KeepsTheOpLevelPlacementWhenNothingIsFaster) {
  ChainPlacement s;
  int calls = 0;
  auto measure = [&](Placement const& p) {  // no cross-kernel effect: the DP's sum is the truth
    ++calls;
    return s.measure(p, 0.0);
  };
  auto judge = [&](Placement const& a, Placement const& b) { return compared(s.measure(a, 0.0), s.measure(b, 0.0)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start, {}, measure, judge,
                              {.target = target, .budget_seconds = 5});
  EXPECT_EQ(r.kept, "op-level placement");
  EXPECT_EQ(r.placement.groups.size(), s.start.groups.size());
  EXPECT_DOUBLE_EQ(r.best_measured, s.measure(s.start, 0.0));
  EXPECT_EQ(static_cast<std::size_t>(calls), r.measured);  // memoised: each genome once
  EXPECT_GT(r.measured, 8u);     // the seeds and children were measured ...
  EXPECT_LE(r.measured, 256u);   // ... at most the whole space of 8 digits,
  EXPECT_LT(r.seconds, 5.0);     // and the search stopped when it saturated, not at the budget
}

/// The placement on the target (per-op) backend alone: the single-backend incumbent.
Placement per_op_alone(ChainPlacement const& s) {
  std::vector<Candidate> alone;
  std::vector<double> cost;
  for (std::size_t c = 0; c < s.cands.size(); ++c)
    if (s.cands[c].backend == target) alone.push_back(s.cands[c]), cost.push_back(s.cost[c]);
  auto by_index = [&](Candidate const& c) { return cost[static_cast<std::size_t>(&c - alone.data())]; };
  return op_level_dp(s.facts, std::span<Candidate const>(alone), {"per-op", "fusing"}, by_index);
}

TEST(GraphLevelSearch, TheWinnerIsKeptOnlyWhenFasterThanTheBestSingleBackendBeyondNoise) {
  ChainPlacement s;
  std::vector<Incumbent> incumbents{{"per-op alone", per_op_alone(s)}};
  auto measure = [&](Placement const& p) { return s.measure(p, 0.5); };
  // With a conversion of 0.5 per edge between backends: per-op alone 15.8, the op-level
  // placement 16.4 (7 softmaxes between fused convs: 14 conversions), the optimum 13.2.
  ASSERT_NEAR(measure(incumbents[0].placement), 15.8, 1e-9);
  ASSERT_NEAR(measure(s.start), 16.4, 1e-9);
  auto judge = [&](Placement const& a, Placement const& b) { return compared(measure(a), measure(b)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start,
                              std::span<Incumbent const>(incumbents), measure, judge, {.target = target, .budget_seconds = 5});
  EXPECT_EQ(r.kept, "graph-level search");
  EXPECT_NEAR(measure(r.placement), 13.2, 1e-9);
  // The single backend held the place: the op-level placement challenged it and lost, the
  // winner challenged it and won.
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_EQ(r.decisions[0].incumbent, "per-op alone");
  EXPECT_EQ(r.decisions[0].challenger, "op-level placement");
  EXPECT_FALSE(r.decisions[0].comparison.faster);
  EXPECT_EQ(r.decisions[1].incumbent, "per-op alone");
  EXPECT_EQ(r.decisions[1].challenger, "graph-level search");
  EXPECT_TRUE(r.decisions[1].comparison.faster);
}

TEST(GraphLevelSearch, KeepsTheBestSingleBackendWhenTheWinnerIsFasterOnlyWithinNoise) {
  ChainPlacement s;
  std::vector<Incumbent> incumbents{{"per-op alone", per_op_alone(s)}};
  // The single backend measures 13.25: the winner's 13.2 is 0.4% faster, inside the 1% margin.
  auto time = [&](Placement const& p) { return same_placement(p, incumbents[0].placement) ? 13.25 : s.measure(p, 0.5); };
  auto judge = [&](Placement const& a, Placement const& b) { return compared(time(a), time(b)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start,
                              std::span<Incumbent const>(incumbents), time, judge, {.target = target, .budget_seconds = 5});
  EXPECT_NEAR(r.best_measured, 13.2, 1e-9);  // the search found the optimum ...
  EXPECT_EQ(r.kept, "per-op alone");        // ... and did not keep it
  EXPECT_TRUE(r.genome.empty());
  EXPECT_TRUE(same_placement(r.placement, incumbents[0].placement));
  EXPECT_NEAR(r.placement.cost, 13.25, 1e-9);
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_FALSE(r.decisions[1].comparison.faster) << r.decisions[1].describe();
}

/// The optimum of the chain with conversions of 0.5: the expensive convs fused, every other op
/// on the target.
Placement chain_optimum(ChainPlacement const& s) {
  auto const& g = s.chain.g;
  Placement optimum;
  optimum.backends = s.start.backends;
  for (auto const& pg : s.start.groups) {
    bool keep = pg.backend == target || std::ranges::any_of(pg.group.nodes, [&](NodeId n) { return s.chain.expensive.contains(g[n].name); });
    if (keep) {
      optimum.groups.push_back(pg);
      continue;
    }
    std::vector<NodeId> ops = pg.group.nodes;
    std::ranges::sort(ops, {}, [&](NodeId n) { return s.facts.position(n); });
    for (NodeId n : ops) optimum.groups.push_back(PlacedGroup{NodeGroup{{n}}, target, "one-op", 0});
  }
  return optimum;
}

TEST(GraphLevelSearch, SeedsThePopulationWithTheGenomeNearestEachIncumbent) {
  ChainPlacement s;
  // An incumbent that is the optimum: after the op-level placement and everything offloaded,
  // the third genome measured.
  std::vector<Incumbent> incumbents{{"a single backend", chain_optimum(s)}};
  std::vector<double> measured;
  auto measure = [&](Placement const& p) {
    measured.push_back(s.measure(p, 0.5));
    return measured.back();
  };
  auto judge = [&](Placement const& a, Placement const& b) { return compared(s.measure(a, 0.5), s.measure(b, 0.5)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start,
                              std::span<Incumbent const>(incumbents), measure, judge, {.target = target, .budget_seconds = 5});
  ASSERT_GE(measured.size(), 3u);
  EXPECT_NEAR(measured[0], 16.4, 1e-9);  // the op-level placement
  EXPECT_NEAR(measured[1], 15.8, 1e-9);  // everything offloaded
  EXPECT_NEAR(measured[2], 13.2, 1e-9);  // the incumbent's genome
  EXPECT_EQ(r.kept, "a single backend");  // the winner is that same placement: not measured against it again
  ASSERT_EQ(r.decisions.size(), 2u);
  EXPECT_TRUE(r.decisions[1].same) << r.decisions[1].describe();
}

TEST(GraphLevelSearch, SeedsThatHoldNoPlaceAreSeedsToo) {
  ChainPlacement s;
  std::vector<double> measured;
  auto measure = [&](Placement const& p) {
    measured.push_back(s.measure(p, 0.5));
    return measured.back();
  };
  auto judge = [&](Placement const& a, Placement const& b) { return compared(s.measure(a, 0.5), s.measure(b, 0.5)); };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start, {}, measure, judge,
                              {.target = target, .budget_seconds = 5, .seeds = {chain_optimum(s)}});
  ASSERT_GE(measured.size(), 3u);
  EXPECT_NEAR(measured[2], 13.2, 1e-9);  // the seed's genome, right after the op-level placement and everything offloaded
  EXPECT_EQ(r.kept, "graph-level search");
  ASSERT_EQ(r.decisions.size(), 1u);  // no incumbent: the op-level placement held the place
  EXPECT_EQ(r.decisions[0].incumbent, "op-level placement");
}

TEST(GraphLevelSearch, RejectsATargetOutsideTheBackends) {
  ChainPlacement s;
  auto measure = [&](Placement const& p) { return s.measure(p, 0.0); };
  auto judge = [](Placement const&, Placement const&) { return Comparison{}; };
  EXPECT_THROW(graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start, {}, measure, judge,
                                  {.target = 2}),
               Error);
}

}  // namespace graph_level_search_test
}  // namespace autograph::placement
