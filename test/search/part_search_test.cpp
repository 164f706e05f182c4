// The parallel part search (BSMCP of every part): each part searched on its own, on a pool of
// threads, with the same result whatever the number of threads, and a failure in one part's
// search reported, not lost.
#include <autograph/search/part_search.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "chains_testing.hpp"

namespace part_search_test {
using namespace autograph;

using toy::CollapseRelus;
using toy::ops;

TEST(PartSearch, SameResultOnOneThreadAndTwo) {
  auto c = toy::relu_chains({3, 5, 7});
  auto make = [] { return CollapseRelus{}; };
  auto one = search_parts_in_parallel(c.graph, c.part, make, ops, {.search = {.budget = 100, .top_k = 2}, .threads = 1});
  auto two = search_parts_in_parallel(c.graph, c.part, make, ops, {.search = {.budget = 100, .top_k = 2}, .threads = 2});
  ASSERT_EQ(one.size(), 3u);
  ASSERT_EQ(two.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(one[i].best[0].cost, 1.0) << "part " << i << " collapses to one relu";
    EXPECT_EQ(one[i].best.size(), 2u);
    EXPECT_EQ(one[i].expanded, two[i].expanded);
    ASSERT_EQ(one[i].best.size(), two[i].best.size());
    for (std::size_t k = 0; k < one[i].best.size(); ++k) {
      EXPECT_EQ(one[i].best[k].cost, two[i].best[k].cost);
      EXPECT_TRUE(structurally_equal(one[i].best[k].graph, two[i].best[k].graph));
    }
  }
  // Part i was extracted from chain i: 2, 4 and 6 collapses.
  EXPECT_EQ(one[0].best[0].trail.size(), 2u);
  EXPECT_EQ(one[2].best[0].trail.size(), 6u);
}

TEST(PartSearch, AFailingSearchIsRethrownAfterTheOthersFinish) {
  auto c = toy::relu_chains({3, 5, 7});
  std::atomic<int> made{0};
  auto make = [&] {
    if (made++ == 1) throw std::runtime_error("expander for the second search failed");
    return CollapseRelus{};
  };
  EXPECT_THROW(search_parts_in_parallel(c.graph, c.part, make, ops, {.search = {.budget = 10}, .threads = 2}), std::runtime_error);
  EXPECT_EQ(made.load(), 3) << "every part's search ran";
}

}  // namespace part_search_test
