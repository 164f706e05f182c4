// The op-level DP with layout conversions charged on edges (placement/layout_model.hpp): equal
// to brute force over every cover, costed by the runtime's rule (a value stays fast only when
// its producer gives it fast and every reader takes it fast; each end that wanted fast and
// meets a plain value pays one conversion), on random graphs; and on a chain where charging each
// plain group its own conversions, as if every neighbour were fast, picks the wrong cover.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <set>

#include <autograph/graph/builder.hpp>
#include <autograph/placement/op_level_dp.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"

namespace autograph::placement {
namespace op_level_dp_layout_test {

/// Every op alone, in the plain layout (backend 1 of the registries below).
struct PlainPerOp : testing::PerOpBackend {
  static constexpr std::string_view name = "plain";
};

/// Connected convex groups of up to 3 ops, in the fast layout.
struct FastGroups {
  static constexpr std::string_view name = "fast-groups";
  template <class Set>
  void declare(BackendSpec<Set>& spec) const {
    spec.add(PatternRule<Set>{.name = "connected",
                              .valid_op = [](Graph<Set> const&, NodeId) { return true; },
                              .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                              .max_size = 3});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
};

using Registry = Backends<testing::PerOpBackend, PlainPerOp, FastGroups>;  // fast, plain, fast
std::vector<std::string> const names{"per-op", "plain", "fast-groups"};

/// The values `group` reads from outside it, once each.
std::vector<Value> read_from_outside(Graph<> const& g, NodeGroup const& group) {
  std::vector<Value> r;
  for (NodeId n : group.nodes)
    for (Value in : g[n].inputs)
      if (!group.contains(in.node) && std::ranges::find(r, in) == r.end()) r.push_back(in);
  return r;
}

/// The values `group` writes that are read outside it or are graph outputs.
std::vector<Value> escaping(Graph<> const& g, NodeGroup const& group) {
  std::vector<Value> r;
  for (NodeId n : group.nodes)
    for (std::uint32_t p = 0; p < g[n].outputs.size(); ++p) {
      Value v{n, p};
      bool out = g.is_output(v);
      for (Use u : g.users(n)) out = out || (!group.contains(u.node) && g[u.node].inputs[u.input] == v);
      if (out) r.push_back(v);
    }
  return r;
}

/// Backends 0 and 2 take and give every value fast, backend 1 none.
LayoutModel model(Graph<> const& g, std::function<double(Value)> conversion) {
  return {.layout =
              [&g](Candidate const& c) {
                GroupLayout l;
                if (c.backend != 1) l.takes_fast = read_from_outside(g, c.group), l.gives_fast = escaping(g, c.group);
                return l;
              },
          .conversion = std::move(conversion)};
}

/// The conversions a cover pays by the runtime's rule, and how many.
std::pair<double, std::size_t> runtime_conversions(Graph<> const& g, std::vector<Candidate const*> const& cover, LayoutModel const& m) {
  std::vector<int> owner(g.id_bound(), -1);
  std::vector<GroupLayout> layouts;
  for (std::size_t i = 0; i < cover.size(); ++i) {
    for (NodeId n : cover[i]->group.nodes) owner[n] = static_cast<int>(i);
    layouts.push_back(m.layout(*cover[i]));
  }
  auto in = [](std::vector<Value> const& vs, Value v) { return std::ranges::find(vs, v) != vs.end(); };
  std::set<Value> values;
  for (auto const* c : cover)
    for (Value v : read_from_outside(g, c->group)) values.insert(v);
  for (auto const* c : cover)
    for (Value v : escaping(g, c->group)) values.insert(v);
  double cost = 0;
  std::size_t count = 0;
  for (Value v : values) {
    double conv = m.conversion(v);
    if (conv == 0) continue;
    int producer = owner[v.node];
    bool gives = producer >= 0 && in(layouts[static_cast<std::size_t>(producer)].gives_fast, v);
    std::size_t takers = 0, readers = 0;
    for (std::size_t i = 0; i < cover.size(); ++i)
      if (static_cast<int>(i) != producer && in(read_from_outside(g, cover[i]->group), v)) {
        ++readers;
        takers += in(layouts[i].takes_fast, v);
      }
    bool fast = gives && takers == readers && !g.is_output(v);
    if (fast) continue;
    std::size_t ends = takers + (gives ? 1 : 0);
    cost += conv * static_cast<double>(ends);
    count += ends;
  }
  return {cost, count};
}

/// The cheapest runnable cover by brute force, its groups' costs plus epsilon plus the runtime's conversions.
double brute_force(GraphFacts<BuiltinOps> const& facts, std::vector<Candidate> const& cands, std::vector<double> const& cost, double eps,
                   LayoutModel const& m) {
  auto const& g = facts.graph();
  auto placed = facts.placed_nodes();
  double best = std::numeric_limits<double>::infinity();
  std::vector<std::uint32_t> chosen;
  std::vector<int> owner(g.id_bound(), -1);
  auto runnable = [&] {  // the groups' quotient graph is acyclic
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
      if (!runnable()) return;
      std::vector<Candidate const*> cover;
      for (auto c : chosen) cover.push_back(&cands[c]);
      best = std::min(best, so_far + runtime_conversions(g, cover, m).first);
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

Graph<> random_graph(std::mt19937& rng, int ops) {
  GraphBuilder b;
  std::vector<Value> vals{b.input("x", {1, 2, 2, 2}), b.input("y", {1, 2, 2, 2})};
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

TEST(OpLevelDpLayout, EqualsBruteForceWithTheRuntimesConversions) {
  std::mt19937 rng(29);
  for (int trial = 0; trial < 40; ++trial) {
    auto g = random_graph(rng, 6 + trial % 3);
    GraphFacts<BuiltinOps> facts(g);
    auto cands = generate_candidates(facts, Registry::registry<BuiltinOps>()).candidates;
    std::uniform_real_distribution<double> u(0.2, 3.0);
    std::vector<double> cost(cands.size());
    for (auto& c : cost) c = u(rng);
    std::map<Value, double> conversion;  // a cost per value, some of them 0 (one layout)
    auto conv = [&](Value v) {
      auto [it, fresh] = conversion.try_emplace(v, 0.0);
      if (fresh) it->second = rng() % 4 == 0 ? 0.0 : u(rng);
      return it->second;
    };
    LayoutModel m = model(g, conv);
    double eps = trial % 2 ? 0.1 : 0.0;
    auto by_index = [&](Candidate const& c) { return cost[static_cast<std::size_t>(&c - cands.data())]; };
    auto p = op_level_dp(facts, std::span<Candidate const>(cands), names, by_index, {.epsilon = eps, .layout = m});
    ASSERT_EQ(p.states_cut, 0u);
    EXPECT_NEAR(p.cost, brute_force(facts, cands, cost, eps, m), 1e-9) << "trial " << trial;
    // The conversions the DP charged for its cover are the ones the runtime's rule gives it.
    std::vector<Candidate const*> cover;
    double groups = 0;
    for (auto const& pg : p.groups) {
      auto it = std::ranges::find_if(cands, [&](Candidate const& c) { return c.group == pg.group && c.backend == pg.backend; });
      ASSERT_NE(it, cands.end());
      cover.push_back(&*it);
      groups += pg.cost + eps;
    }
    auto [conv_cost, conv_count] = runtime_conversions(g, cover, m);
    EXPECT_EQ(p.conversions, conv_count) << "trial " << trial;
    EXPECT_NEAR(p.cost, groups + conv_cost, 1e-9) << "trial " << trial;
  }
}

TEST(OpLevelDpLayout, EdgeChargingKeepsAPlainChainThatPerGroupChargingRejects) {
  // x -> relu -> relu -> relu -> relu -> out, 4-D. Fast kernels cost 10, plain ones 7, a
  // conversion 4. The runtime converts where a fast end meets a plain value: the graph's input
  // and output are plain, so all-plain pays no conversion (28) and all-fast pays two (48).
  GraphBuilder b;
  Value v = b.input("x", {1, 8, 4, 4});
  for (int i = 0; i < 4; ++i) v = b.relu(v);
  Graph<> g = std::move(b).build({v});
  GraphFacts<BuiltinOps> facts(g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, PlainPerOp>::registry<BuiltinOps>()).candidates;
  LayoutModel m = model(g, [](Value) { return 4.0; });
  auto cost = [](Candidate const& c) { return c.backend == 1 ? 7.0 : 10.0; };
  auto edges = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "plain"}, cost, {.layout = m});
  EXPECT_DOUBLE_EQ(edges.cost, 28.0);
  EXPECT_EQ(edges.conversions, 0u);
  for (auto const& pg : edges.groups) EXPECT_EQ(edges.backend_of(pg), "plain");
  // Per group (the second version): each plain kernel charged a conversion per 4-D tensor it
  // reads or writes, as if its neighbours were fast: 7 + 8 = 15 > 10, so it keeps every op fast.
  auto per_group = [&](Candidate const& c) { return c.backend == 1 ? 7.0 + 4.0 * 2 : 10.0; };
  auto charged = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "plain"}, per_group);
  std::vector<Candidate const*> cover;
  for (auto const& pg : charged.groups) {
    EXPECT_EQ(charged.backend_of(pg), "per-op");
    cover.push_back(&*std::ranges::find_if(cands, [&](Candidate const& c) { return c.group == pg.group && c.backend == pg.backend; }));
  }
  auto [conv_cost, conv_count] = runtime_conversions(g, cover, m);
  EXPECT_EQ(conv_count, 2u);
  EXPECT_DOUBLE_EQ(40.0 + conv_cost, 48.0);  // what its cover costs by the runtime's rule: worse than 28
}

TEST(OpLevelDpLayout, AReaderThatRefusesTheFastLayoutMakesTheValuePlain) {
  // relu (fast or plain) feeds two relus; if one reader runs plain, the value lies plain and the
  // fast producer and the fast reader each convert it.
  GraphBuilder b;
  Value x = b.input("x", {1, 8, 4, 4});
  Value r = b.relu(x);
  Value a = b.relu(r), c = b.sigmoid(r);
  Graph<> g = std::move(b).build({a, c});
  GraphFacts<BuiltinOps> facts(g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, PlainPerOp>::registry<BuiltinOps>()).candidates;
  LayoutModel m = model(g, [](Value) { return 1.0; });
  // The sigmoid can only run plain (its fast candidate is unrunnable); everything else fast.
  auto cost = [&](Candidate const& cand) {
    bool sig = cand.group.contains(c.node);
    if (sig) return cand.backend == 1 ? 5.0 : std::numeric_limits<double>::infinity();
    return cand.backend == 1 ? 100.0 : 5.0;
  };
  auto p = op_level_dp(facts, std::span<Candidate const>(cands), {"per-op", "plain"}, cost, {.layout = m});
  // x (a graph input, plain) read fast: 1; r given fast but plain for the sigmoid: its producer
  // and its fast reader convert, 2; a, a graph output (plain), given fast: 1; the sigmoid: none.
  EXPECT_EQ(p.conversions, 4u);
  EXPECT_DOUBLE_EQ(p.cost, 15.0 + 4.0);
}

}  // namespace op_level_dp_layout_test
}  // namespace autograph::placement
