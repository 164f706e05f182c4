// fusion::dpof(): the DP over the topological queue equals brute force over every disjoint
// subset of groups, prefers not fusing on ties, skips infinite deltas, and refuses bad input.
#include <gtest/gtest.h>

#include <autograph/fusion/dpof.hpp>

#include <cmath>
#include <limits>
#include <random>

namespace autograph::fusion {
namespace {

using Groups = std::vector<std::vector<std::uint32_t>>;

/// The least sum of deltas over every pairwise disjoint subset (2^groups subsets).
double brute_force(Groups const& groups, std::vector<double> const& delta) {
  double best = 0;
  for (std::uint32_t mask = 1; mask < (1u << groups.size()); ++mask) {
    std::vector<char> used(64, 0);
    bool disjoint = true;
    double sum = 0;
    for (std::size_t k = 0; k < groups.size() && disjoint; ++k) {
      if (!((mask >> k) & 1u)) continue;
      sum += delta[k];
      for (auto p : groups[k]) disjoint = disjoint && !std::exchange(used[p], 1);
    }
    if (disjoint) best = std::min(best, sum);
  }
  return best;
}

TEST(Dpof, EqualsBruteForceOnRandomSmallInstances) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    std::uint32_t n = 4 + rng() % 10;
    Groups groups(rng() % 12);
    std::vector<double> delta;
    for (auto& grp : groups) {
      std::uint32_t first = rng() % n, size = 1 + rng() % 4;
      for (std::uint32_t p = first; p < n && grp.size() < size; p += 1 + rng() % 3) grp.push_back(p);
      delta.push_back(std::uniform_real_distribution<double>(-3, 1)(rng));
    }
    auto c = dpof(n, groups, delta);
    EXPECT_NEAR(c.delta, brute_force(groups, delta), 1e-12) << "trial " << trial;
    // The chosen groups are disjoint and their deltas sum to the reported total.
    std::vector<char> used(n, 0);
    double sum = 0;
    for (std::size_t k : c.chosen) {
      sum += delta[k];
      for (auto p : groups[k]) EXPECT_FALSE(std::exchange(used[p], 1)) << "trial " << trial << ": position " << p << " fused twice";
    }
    EXPECT_NEAR(sum, c.delta, 1e-12);
  }
}

TEST(Dpof, OverlappingGroupsTakeTheBetterOne) {
  Groups groups{{0, 1}, {1, 2}, {3, 4}};
  auto c = dpof(5, groups, std::vector<double>{-1, -2, -0.5});
  EXPECT_EQ(c.chosen, (std::vector<std::size_t>{1, 2}));
  EXPECT_DOUBLE_EQ(c.delta, -2.5);
}

TEST(Dpof, SlowerOrEqualFusionsAreLeftUnfused) {
  double const inf = std::numeric_limits<double>::infinity();
  auto c = dpof(4, Groups{{0, 1}, {2, 3}, {1, 2}}, std::vector<double>{0.0, 1.0, inf});
  EXPECT_TRUE(c.chosen.empty());
  EXPECT_EQ(c.delta, 0.0);
}

TEST(Dpof, RefusesBadGroups) {
  EXPECT_THROW(dpof(3, Groups{{}}, std::vector<double>{-1}), Error);
  EXPECT_THROW(dpof(3, Groups{{1, 3}}, std::vector<double>{-1}), Error);
  EXPECT_THROW(dpof(3, Groups{{1, 1}}, std::vector<double>{-1}), Error);
  EXPECT_THROW(dpof(3, Groups{{1}}, std::vector<double>{std::nan("")}), Error);
  EXPECT_THROW(dpof(3, Groups{{1}}, std::vector<double>{}), Error);
}

}  // namespace
}  // namespace autograph::fusion
