#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/search/backtracking.hpp>
#include <gtest/gtest.h>

using namespace autograph;

namespace {
constexpr RuleId relu_relu = 0, grow_rule = 1;  // the toy rules' ids

/// A toy rule for the search itself: relu(relu(x)) -> relu(x), applied at every match.
void collapse_relus(Graph<> const& g, auto&& emit) {
  for (NodeId id : g.node_ids()) {
    if (!g[id].is<Relu>()) continue;
    Value in = g[id].inputs[0];
    if (!g[in.node].is<Relu>()) continue;
    Graph<> next = g;
    next.replace_uses(Value{id}, in);
    next.remove_dead();
    emit(std::move(next), relu_relu);
  }
}
/// A toy rule that makes graphs bigger: x -> relu(relu(x)) is not equivalent, but for the
/// search mechanics it is a neighbour that costs more.
void grow(Graph<> const& g, auto&& emit) {
  for (NodeId id : g.node_ids()) {
    if (!g[id].is<Relu>()) continue;
    Graph<> next = g;
    NodeId extra = next.add(Identity{}, {Value{id}});
    next.replace_uses(Value{id}, Value{extra});
    next.set_input(Use{extra, 0}, Value{id});
    emit(std::move(next), grow_rule);
  }
}
double ops(Graph<> const& g) { return static_cast<double>(graph_stats(g).operators); }

Graph<> relu_chain(int n) {
  GraphBuilder b;
  Value v = b.input("x", {4});
  for (int i = 0; i < n; ++i) v = b.relu(v);
  return std::move(b).build({v});
}
}  // namespace

TEST(Backtracking, FindsTheOptimumAndCountsRewrites) {
  auto out = backtracking_search(relu_chain(6), [](auto const& g, auto&& emit) { collapse_relus(g, emit); }, ops, {.budget = 1000});
  ASSERT_FALSE(out.best.empty());
  EXPECT_EQ(out.best[0].cost, 1.0);
  EXPECT_EQ(out.best[0].trail.id_counts().at(relu_relu), 5u);
  // The many orders of collapsing reach the same graphs: duplicates are recognised.
  EXPECT_GT(out.duplicates, 0u);
  EXPECT_EQ(out.stop_reason, "no candidate left within the relaxation");
}

TEST(Backtracking, RelaxationBoundsWhatIsKept) {
  auto uphill = [](auto const& g, auto&& emit) { grow(g, emit); };
  // Every neighbour costs one more. β = 1 keeps none of them; β = 1.5 keeps those within
  // 1.5 × 3 = 4.5: the three one-step neighbours (cost 4), not their neighbours (cost 5).
  auto strict = backtracking_search(relu_chain(3), uphill, ops, {.relax = 1.0, .budget = 1000});
  auto loose = backtracking_search(relu_chain(3), uphill, ops, {.relax = 1.5, .budget = 1000});
  EXPECT_EQ(strict.expanded, 1u);
  EXPECT_EQ(loose.expanded, 4u);
  EXPECT_EQ(strict.best[0].cost, 3.0);
  EXPECT_EQ(loose.best[0].cost, 3.0);
}

TEST(Backtracking, BudgetStopsAndSaysSo) {
  auto out = backtracking_search(relu_chain(8), [](auto const& g, auto&& emit) { collapse_relus(g, emit); }, ops, {.budget = 2});
  EXPECT_EQ(out.expanded, 2u);
  EXPECT_EQ(out.stop_reason, "budget of 2 expanded graphs reached");
  EXPECT_LT(out.best[0].cost, 8.0);
}

TEST(Backtracking, TopKAreDistinctAndSorted) {
  auto out = backtracking_search(relu_chain(4), [](auto const& g, auto&& emit) { collapse_relus(g, emit); }, ops, {.budget = 100, .top_k = 3});
  ASSERT_EQ(out.best.size(), 3u);
  EXPECT_EQ(out.best[0].cost, 1.0);
  EXPECT_EQ(out.best[1].cost, 2.0);
  EXPECT_EQ(out.best[2].cost, 3.0);
}
