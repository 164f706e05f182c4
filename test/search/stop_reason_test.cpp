// The optimizer's typed stop reason prints the sentences tools and the README show, with its numbers.
#include <autograph/search/stop_reason.hpp>
#include <gtest/gtest.h>

using namespace autograph;

TEST(StopReason, DescribesEachReasonWithItsNumbers) {
  EXPECT_EQ((OptimizeStop{StopReason::round_limit, 4, 0}).describe(), "round limit of 4 reached");
  EXPECT_EQ((OptimizeStop{StopReason::time_limit, 2, 60}).describe(), "time limit of 60.000000 s reached");
  EXPECT_EQ((OptimizeStop{StopReason::no_improvement, 3, 0}).describe(), "no measured improvement in round 3");
  EXPECT_EQ((OptimizeStop{StopReason::queue_empty, 2, 0}).describe(), "no improved graph left to explore after round 2");
  EXPECT_EQ((OptimizeStop{StopReason::estimate_only, 1, 0}).describe(), "estimated cost only (no measured rounds)");
}

TEST(StopReason, ToStringIsDescribe) {
  OptimizeStop s{StopReason::time_limit, 0, 0.5};
  EXPECT_EQ(to_string(s), "time limit of 0.500000 s reached");
  EXPECT_NE(s, (OptimizeStop{StopReason::time_limit, 0, 1.5}));
}
