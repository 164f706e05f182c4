// The graph-level search (Collage §4.3) on synthetic measurers: a cross-kernel effect the
// op-level DP cannot see (a conversion on every edge between kernels of different backends)
// is found, the result is never slower than the op-level start or an incumbent, every
// individual measured is a valid cover, and each genome is measured once.
#include <gtest/gtest.h>

#include <set>

#include <autograph/graph/builder.hpp>
#include <autograph/placement/graph_level_search.hpp>
#include <autograph/placement/op_level_dp.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"

namespace autograph::placement {
namespace {

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

bool faster(double incumbent, double challenger) { return challenger < incumbent * 0.99; }

TEST(GraphLevelSearch, FindsTheCrossKernelEffectTheDpCannotSee) {
  ChainPlacement s;
  auto const& g = s.chain.g;
  for (auto const& pg : s.start.groups) {  // the DP fuses every conv on the fusing backend
    if (g[pg.group.nodes[0]].is<Conv2D>()) {
      EXPECT_EQ(pg.backend, fusing) << g.label(pg.group.nodes[0]);
    }
  }
  auto measure = [&](Placement const& p) { return s.measure(p, 0.5); };
  auto judge = [&](Placement const& a, Placement const& b) { return faster(measure(a), measure(b)); };
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
  auto judge = [&](Placement const& a, Placement const& b) { return faster(s.measure(a, 0.0), s.measure(b, 0.0)); };
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

TEST(GraphLevelSearch, ReturnsAnIncumbentThatIsFasterBeyondNoise) {
  ChainPlacement s;
  // The incumbent (standing for the best single backend) is judged faster than anything searched.
  std::vector<Incumbent> incumbents{{"single backend", s.start}};
  auto measure = [&](Placement const& p) { return s.measure(p, 0.5); };
  auto judge = [&](Placement const& a, Placement const& b) {
    auto t = [&](Placement const& p) { return &p == &incumbents[0].placement ? 0.1 : measure(p); };
    return faster(t(a), t(b));
  };
  auto r = graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start,
                              std::span<Incumbent const>(incumbents), measure, judge, {.target = target, .budget_seconds = 5});
  EXPECT_EQ(r.kept, "single backend");
  EXPECT_TRUE(r.genome.empty());
}

TEST(GraphLevelSearch, RejectsATargetOutsideTheBackends) {
  ChainPlacement s;
  auto measure = [&](Placement const& p) { return s.measure(p, 0.0); };
  auto judge = [](Placement const&, Placement const&) { return false; };
  EXPECT_THROW(graph_level_search(s.facts, std::span<Candidate const>(s.cands), std::span<double const>(s.cost), s.start, {}, measure, judge,
                                  {.target = 2}),
               Error);
}

}  // namespace
}  // namespace autograph::placement
