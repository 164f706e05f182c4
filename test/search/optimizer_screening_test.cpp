// The optimizer on a runtime that screens: each candidate is timed against the best latency so
// far, which only improves as the search goes (scripted_runtime.hpp).
#include <gtest/gtest.h>

#include "chains_testing.hpp"
#include "scripted_runtime.hpp"

namespace autograph {
namespace {

TEST(OptimizerOnAScreeningRuntime, ScreensCandidatesAgainstTheBestSoFar) {
  Graph<> g = toy::conv_relu_chain();
  toy::ScriptedRuntime rt;
  auto r = toy::ScriptedOptimizer(rt, {.partition = false}).optimize(g);
  EXPECT_EQ(r.rewrites["fuse-conv-relu"], 3u);
  auto const& bounds = rt.log->bounds;
  ASSERT_FALSE(bounds.empty());
  EXPECT_EQ(bounds.front(), static_cast<double>(g.num_nodes()));  // the input is the best before any candidate
  for (double bound : bounds) EXPECT_GE(bound, r.latency_ms);      // always the best so far
  EXPECT_LT(bounds.back(), bounds.front());                        // which improved as the search went
}

}  // namespace
}  // namespace autograph
