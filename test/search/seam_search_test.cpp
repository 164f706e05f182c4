// Seam search: only matches across chunk seams (or over what the seam search built) are its to take.
#include <autograph/search/seam_search.hpp>
#include <gtest/gtest.h>

using namespace autograph;

namespace {
rules::FoundMatch over(std::vector<NodeId> nodes) {
  rules::FoundMatch f;
  f.match.nodes.assign(nodes.begin(), nodes.end());
  return f;
}
constexpr std::size_t none = PlanChoice::none;
}  // namespace

TEST(SeamSearch, TakesOnlyMatchesAcrossSeams) {
  // Nodes 0 and 1 are inputs; 2, 3 from chunk 0; 4, 5 from chunk 1.
  std::vector<std::size_t> owner{none, none, 0, 0, 1, 1};
  EXPECT_FALSE(spans_seam(owner, over({2, 3}))) << "inside chunk 0";
  EXPECT_FALSE(spans_seam(owner, over({0, 4, 5}))) << "inside chunk 1, reading an input";
  EXPECT_TRUE(spans_seam(owner, over({3, 4}))) << "across the seam";
  EXPECT_TRUE(spans_seam(owner, over({2, 6}))) << "node 6 was built by the seam search";
  EXPECT_FALSE(spans_seam(owner, over({0, 1}))) << "inputs only";
}
