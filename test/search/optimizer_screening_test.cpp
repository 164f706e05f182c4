// A candidate only needs to be known not to beat the best: on a ScreeningRuntime the
// optimizer measures candidates with screen(g, best latency), which may stop timing once a
// candidate is clearly slower than the best (runtime/noise.hpp). A scripted runtime records
// the bounds: latency = node count, compare() agrees with it.
#include <gtest/gtest.h>

#include <memory>

#include "autograph/cost/roofline.hpp"
#include "autograph/rules/library/fusion.hpp"
#include "autograph/search/optimizer.hpp"
#include "chains_testing.hpp"

namespace autograph {
namespace {

struct ScreeningRuntime {
  std::shared_ptr<std::vector<double>> bounds = std::make_shared<std::vector<double>>();
  RooflineCost cost{devices::H100::spec};
  double measure(Graph<> const& g) { return static_cast<double>(g.num_nodes()); }
  double screen(Graph<> const& g, double bound_ms) {
    bounds->push_back(bound_ms);
    return measure(g);
  }
  std::string kind() const { return "scripted, screening"; }
  RooflineCost const& cost_model() const { return cost; }
  Comparison compare(Graph<> const& incumbent, Graph<> const& challenger) {
    double a = static_cast<double>(incumbent.num_nodes()), b = static_cast<double>(challenger.num_nodes());
    return {a, b, 0.0, b < a, 5};
  }
};
static_assert(autograph::ScreeningRuntime<ScreeningRuntime> && ComparingRuntime<ScreeningRuntime>);

TEST(OptimizerOnAScreeningRuntime, ScreensCandidatesAgainstTheBestSoFar) {
  Graph<> g = toy::conv_relu_chain();
  ScreeningRuntime rt;
  auto r = Optimizer<Graph<>, rules::Rules<rules::FuseConvRelu>, SumCost, ScreeningRuntime>(rt, {.partition = false}).optimize(g);
  EXPECT_EQ(r.rewrites["fuse-conv-relu"], 3u);
  ASSERT_FALSE(rt.bounds->empty());
  EXPECT_EQ(rt.bounds->front(), static_cast<double>(g.num_nodes()));  // the input is the best before any candidate
  for (double bound : *rt.bounds) EXPECT_GE(bound, r.latency_ms);      // always the best so far
  EXPECT_LT(rt.bounds->back(), rt.bounds->front());                    // which improved as the search went
}

}  // namespace
}  // namespace autograph
