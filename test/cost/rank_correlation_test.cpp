// Rank correlation (cost/rank_correlation.hpp): how calibrations judge an estimate's ranking.
#include <gtest/gtest.h>

#include <cmath>

#include "autograph/cost/rank_correlation.hpp"

namespace autograph {
namespace {

TEST(RankCorrelation, RanksAverageTies) {
  std::vector<double> v{10, 30, 20, 30, 5};
  EXPECT_EQ(ranks(v), (std::vector<double>{2, 4.5, 3, 4.5, 1}));
}

TEST(RankCorrelation, SpearmanOfKnownSeries) {
  std::vector<double> x{1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(spearman(x, std::vector<double>{2, 4, 8, 16, 32}), 1.0);   // any increasing map
  EXPECT_DOUBLE_EQ(spearman(x, std::vector<double>{9, 7, 5, 3, 1}), -1.0);
  // y's ranks are 1, 2, 3.5, 5, 3.5: Σdx·dy = 8, Σdx² = 10, Σdy² = 9.5, so ρ = 8 / sqrt(95).
  EXPECT_NEAR(spearman(x, std::vector<double>{5, 6, 7, 8, 7}), 8 / std::sqrt(95.0), 1e-12);
  EXPECT_TRUE(std::isnan(spearman(x, std::vector<double>{1, 1, 1, 1, 1})));  // a constant series ranks nothing
  EXPECT_TRUE(std::isnan(spearman(std::vector<double>{1}, std::vector<double>{2})));
  EXPECT_THROW(spearman(x, std::vector<double>{1, 2}), Error);
}

TEST(RankCorrelation, PearsonOfALinearMapIsOne) {
  std::vector<double> x{1, 2, 3, 4}, y{3, 5, 7, 9};
  EXPECT_DOUBLE_EQ(pearson(x, y), 1.0);
  EXPECT_LT(pearson(x, std::vector<double>{1, 4, 9, 100}), 1.0);  // monotone but not linear: Spearman 1, Pearson less
  EXPECT_DOUBLE_EQ(spearman(x, std::vector<double>{1, 4, 9, 100}), 1.0);
}

}  // namespace
}  // namespace autograph
