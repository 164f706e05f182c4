// The op-level DP (Collage Eq. 3): the cheapest cover equals brute force over every runnable
// cover on random graphs with random costs; covers are valid (disjoint, complete, producers
// first); infinite costs are never chosen; an uncovered node is named; NASNet-A Large is placed
// in well under Collage's minute.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include <autograph/graph/builder.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/placement/op_level_dp.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"

namespace autograph::placement {
namespace op_level_dp_test {

/// A backend proposing every connected convex group of up to 4 ops.
struct AnyGroups {
  static constexpr std::string_view name = "any";
  template <class Set>
  void declare(BackendSpec<Set>& spec) const {
    spec.add(PatternRule<Set>{.name = "connected",
                              .valid_op = [](Graph<Set> const&, NodeId) { return true; },
                              .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                              .max_size = 4});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
};

Graph<> random_graph(std::mt19937& rng, int ops) {
  GraphBuilder b;
  std::vector<Value> vals{b.input("x", {8}), b.input("y", {8})};
  std::vector<int> readers(2, 0);
  for (int i = 0; i < ops; ++i) {
    std::uniform_int_distribution<std::size_t> pick(0, vals.size() - 1);
    std::size_t a = pick(rng), c = pick(rng);
    Value v;
    switch (rng() % 3) {
      case 0: v = b.relu(vals[a]); break;
      case 1: v = b.sigmoid(vals[a]); break;
      default: v = b.add(vals[a], vals[c]); ++readers[c];
    }
    ++readers[a];
    vals.push_back(v);
    readers.push_back(0);
  }
  std::vector<Value> outs;
  for (std::size_t i = 2; i < vals.size(); ++i)
    if (readers[i] == 0) outs.push_back(vals[i]);
  return std::move(b).build(outs);
}

/// Every exact cover of the placed nodes by `cands` whose groups can run in some order (their
/// quotient graph is acyclic); the cheapest one's cost.
double brute_force(GraphFacts<BuiltinOps> const& facts, std::vector<Candidate> const& cands, std::vector<double> const& cost, double eps) {
  auto const& g = facts.graph();
  auto placed = facts.placed_nodes();
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::uint32_t> chosen;
  std::vector<int> owner(g.id_bound(), -1);
  auto runnable = [&] {
    std::size_t k = chosen.size();
    std::vector<std::set<std::size_t>> succ(k);
    std::vector<int> indeg(k, 0);
    for (std::size_t i = 0; i < k; ++i)
      for (NodeId n : cands[chosen[i]].group.nodes)
        for (Value in : g[n].inputs)
          if (int o = owner[in.node]; o >= 0 && static_cast<std::size_t>(o) != i && succ[static_cast<std::size_t>(o)].insert(i).second) ++indeg[i];
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < k; ++i)
      if (indeg[i] == 0) ready.push_back(i);
    std::size_t done = 0;
    while (!ready.empty()) {
      std::size_t i = ready.back();
      ready.pop_back();
      ++done;
      for (std::size_t j : succ[i])
        if (--indeg[j] == 0) ready.push_back(j);
    }
    return done == k;
  };
  std::function<void(double)> rec = [&](double so_far) {
    auto next = std::ranges::find_if(placed, [&](NodeId n) { return owner[n] < 0; });
    if (next == placed.end()) {
      if (runnable()) best = std::min(best, so_far);
      return;
    }
    for (std::uint32_t c = 0; c < cands.size(); ++c) {
      auto const& nodes = cands[c].group.nodes;
      if (!cands[c].group.contains(*next) || std::ranges::any_of(nodes, [&](NodeId n) { return owner[n] >= 0; })) continue;
      for (NodeId n : nodes) owner[n] = static_cast<int>(chosen.size());
      chosen.push_back(c);
      rec(so_far + cost[c] + eps);
      chosen.pop_back();
      for (NodeId n : nodes) owner[n] = -1;
    }
  };
  rec(0);
  return best;
}

/// Disjoint, complete, and every group after the groups it reads from.
void expect_valid(GraphFacts<BuiltinOps> const& facts, Placement const& p) {
  auto const& g = facts.graph();
  std::vector<int> group_of(g.id_bound(), -1);
  for (std::size_t i = 0; i < p.groups.size(); ++i)
    for (NodeId n : p.groups[i].group.nodes) {
      EXPECT_EQ(group_of[n], -1) << g.label(n) << " is in two groups";
      group_of[n] = static_cast<int>(i);
    }
  for (NodeId n : facts.placed_nodes()) {
    ASSERT_GE(group_of[n], 0) << g.label(n) << " is not placed";
    for (Value in : g[n].inputs) {
      if (facts.placed(in.node)) {
        EXPECT_LE(group_of[in.node], group_of[n]) << g.label(n) << " runs before its producer";
      }
    }
  }
}

TEST(OpLevelDp, EqualsBruteForceOnRandomGraphs) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 60; ++trial) {
    auto g = random_graph(rng, 7 + trial % 4);
    GraphFacts<BuiltinOps> facts(g);
    auto reg = Backends<testing::PerOpBackend, AnyGroups>::registry<BuiltinOps>();
    auto cands = generate_candidates(facts, reg).candidates;
    std::uniform_real_distribution<double> u(0.2, 3.0);
    std::vector<double> cost(cands.size());
    for (auto& c : cost) c = u(rng);
    double eps = trial % 2 ? 0.25 : 0.0;
    int calls = 0;
    auto by_index = [&](Candidate const& c) {
      ++calls;
      return cost[static_cast<std::size_t>(&c - cands.data())];
    };
    auto p = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "any"}, by_index, {.epsilon = eps});
    EXPECT_NEAR(p.cost, brute_force(facts, cands, cost, eps), 1e-9) << "trial " << trial;
    EXPECT_LE(static_cast<std::size_t>(calls), cands.size());  // each candidate measured at most once
    expect_valid(facts, p);
    double sum = 0;
    for (auto const& pg : p.groups) sum += pg.cost + eps;
    EXPECT_NEAR(sum, p.cost, 1e-9);
  }
}

TEST(OpLevelDp, NeverChoosesAGroupItCannotRun) {
  testing::Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  // The fused groups would be cheapest, but their backend cannot run them (infinite cost).
  auto cost = [](Candidate const& cand) { return cand.backend == 1 && cand.group.size() > 1 ? std::numeric_limits<double>::infinity() : 1.0; };
  auto p = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "fusing"}, cost);
  EXPECT_EQ(p.groups.size(), 4u);
  EXPECT_DOUBLE_EQ(p.cost, 4.0);
  // Cheap fusion is taken when it can run.
  auto p2 = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "fusing"}, [](Candidate const& cand) { return cand.backend == 1 ? 1.5 : 1.0; });
  ASSERT_EQ(p2.groups.size(), 1u);
  EXPECT_EQ(p2.backend_of(p2.groups[0]), "fusing");
  EXPECT_EQ(p2.group_of(c.add), &p2.groups[0]);
}

TEST(OpLevelDp, FusesAResidualAddThatWaitsForTheOtherBranch) {
  // conv1 -> relu -> add -> relu, and the shortcut conv2 (built last, so after the frontier in
  // topological order) into the add: the fused group of the main branch waits for conv2.
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 8, 8});
  auto main_relu = b.relu(b.conv2d(x, 4, {3, 3}));
  auto shortcut = b.conv2d(x, 4, {1, 1});
  auto out = b.relu(b.add(main_relu, shortcut));
  auto g = std::move(b).build({out});
  GraphFacts<BuiltinOps> facts(g);
  ASSERT_LT(facts.position(main_relu.node), facts.position(shortcut.node));
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  auto p = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "fusing"},
                       [](Candidate const& c) { return c.backend == 1 ? 1.0 : 2.0; });
  ASSERT_EQ(p.groups.size(), 2u);
  EXPECT_EQ(p.groups[0].group.nodes, std::vector<NodeId>{shortcut.node});
  EXPECT_EQ(p.groups[1].group.size(), 4u);
  EXPECT_DOUBLE_EQ(p.cost, 2.0);
}

TEST(OpLevelDp, NamesANodeNoBackendRuns) {
  testing::Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  auto cands = generate_candidates(facts, Backends<testing::ChainBackend>::registry<BuiltinOps>()).candidates;  // no conv
  try {
    op_level_dp(facts, std::span<Candidate const>(cands), {"chains"}, [](Candidate const&) { return 1.0; });
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("no backend can run Conv2D"), std::string::npos) << e.what();
  }
}

TEST(OpLevelDp, NasNetALargeWithSyntheticCosts) {
  auto g = models::build("nasnet_a_large");
  GraphFacts<BuiltinOps> facts(g);
  auto reg = Backends<testing::PerOpBackend, testing::FusingBackend, testing::ChainBackend>::registry<BuiltinOps>();
  auto t0 = std::chrono::steady_clock::now();
  auto cands = generate_candidates(facts, reg).candidates;
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // Synthetic: per op 1, a fused group saves 30% of its ops after the first, plus a reproducible
  // per-candidate jitter so ties do not decide.
  auto cost = [](Candidate const& c) {
    double base = c.backend == 0 ? static_cast<double>(c.group.size()) : 1.0 + 0.7 * static_cast<double>(c.group.size() - 1);
    return base + static_cast<double>(hash_combine(c.group.nodes.front(), c.backend) % 100) / 1000.0;
  };
  auto p = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "fusing", "chains"}, cost, {.epsilon = 0.01});
  std::cout << "nasnet_a_large: " << facts.placed_nodes().size() << " placed ops, " << cands.size() << " candidates (generated in " << gen_s
            << " s), " << p.groups.size() << " groups, " << p.states << " DP states in " << p.seconds << " s\n";
  expect_valid(facts, p);
  EXPECT_LT(p.groups.size(), facts.placed_nodes().size());  // fusion pays under these costs
  EXPECT_LT(gen_s + p.seconds, 10.0);
}

}  // namespace op_level_dp_test
}  // namespace autograph::placement
