// compare_samples: "faster" only beyond the noise the samples themselves show.
#include <gtest/gtest.h>

#include <random>

#include "autograph/runtime/noise.hpp"

namespace autograph {
namespace {

std::vector<double> samples(double center, double spread, std::uint64_t seed, int n = 50) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center, spread);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

TEST(CompareSamples, EqualDistributionsAreNotFaster) {
  int faster = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) faster += compare_samples(samples(10, 0.5, seed), samples(10, 0.5, seed + 1000)).faster;
  EXPECT_LE(faster, 2);  // z = 3: about 1 in 700 by chance
}

TEST(CompareSamples, AClearGainIsFasterAndASmallOneWithinNoiseIsNot) {
  EXPECT_TRUE(compare_samples(samples(10, 0.2, 1), samples(9, 0.2, 2)).faster);
  auto c = compare_samples(samples(10, 1.0, 3), samples(9.9, 1.0, 4));
  EXPECT_FALSE(c.faster);
  EXPECT_GT(c.margin_ms, 0.1);
  // Below half a percent never counts, however tight the samples.
  EXPECT_FALSE(compare_samples(std::vector<double>(50, 10.0), std::vector<double>(50, 9.97)).faster);
  EXPECT_TRUE(compare_samples(std::vector<double>(50, 10.0), std::vector<double>(50, 9.9)).faster);
}

TEST(CompareSamples, OutliersDoNotWidenTheMargin) {
  auto a = samples(10, 0.1, 5), b = samples(9.5, 0.1, 6);
  a[0] = b[0] = 100;  // one preempted run each
  EXPECT_TRUE(compare_samples(a, b).faster);
}

}  // namespace
}  // namespace autograph
