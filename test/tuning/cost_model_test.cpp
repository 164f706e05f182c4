// The learned cost model: trained on random measurements of the synthetic kernel, it orders
// held-out configurations as their latencies do (Spearman's rank correlation), with either
// loss; and bad training data is refused with the reason.
#include <autograph/cost/rank_correlation.hpp>
#include <autograph/tuning/cost_model.hpp>
#include <autograph/tuning/evolutionary_search.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tuning/synthetic_kernel.hpp"

namespace autograph::tuning {
namespace {

using testing::SyntheticMatmul;

struct Sample {
  std::vector<float> rows;
  std::vector<double> latency;
};

Sample sample(SyntheticMatmul::Problem const& p, std::size_t n, std::mt19937_64& rng) {
  auto knobs = SyntheticMatmul::knobs(p);
  auto choices = random_batch<SyntheticMatmul>(p, knobs, [](Choice const&) { return false; }, n, rng, 1000);
  Sample s{feature_rows<SyntheticMatmul>(p, choices, 10), {}};
  for (auto const& c : choices) s.latency.push_back(SyntheticMatmul::latency(p, SyntheticMatmul::config(p, c)));
  return s;
}

/// Spearman's correlation between predicted scores and measured throughput on held-out points.
double held_out_rank_correlation(CostModelOptions::Loss loss) {
  SyntheticMatmul::Problem p;
  std::mt19937_64 rng(7);
  auto train = sample(p, 200, rng), test = sample(p, 500, rng);
  GradientBoostedCostModel model({.loss = loss});
  model.fit(train.rows, 10, train.latency);
  auto predicted = model.predict(test.rows, 10);
  std::vector<double> score(predicted.begin(), predicted.end()), throughput;
  for (double l : test.latency) throughput.push_back(1 / l);
  return spearman(score, throughput);
}

TEST(CostModel, RanksHeldOutConfigurationsLikeTheirLatenciesWithTheRankLoss) {
  double rho = held_out_rank_correlation(CostModelOptions::Loss::pairwise_rank);
  std::printf("rank loss: Spearman %.3f on 500 held-out points after 200 training points\n", rho);
  EXPECT_GT(rho, 0.8);
}

TEST(CostModel, RanksHeldOutConfigurationsLikeTheirLatenciesWithTheWeightedSquaredErrorOfEq5) {
  double rho = held_out_rank_correlation(CostModelOptions::Loss::weighted_squared_error);
  std::printf("Eq. 5 loss: Spearman %.3f on 500 held-out points after 200 training points\n", rho);
  EXPECT_GT(rho, 0.8);
}

TEST(CostModel, RefusesBadTrainingDataAndPredictionsBeforeTraining) {
  GradientBoostedCostModel model;
  std::vector<float> rows{1, 2, 3, 4};
  EXPECT_FALSE(model.trained());
  EXPECT_THROW(
      try { (void)model.predict(rows, 2); } catch (Error const& e) {
        EXPECT_STREQ(e.what(), "cost model: predict() before fit()");
        throw;
      },
      Error);
  std::vector<double> one{1e-3};
  EXPECT_THROW(
      try { model.fit(rows, 2, one); } catch (Error const& e) {
        EXPECT_STREQ(e.what(), "cost model: 4 feature values for 1 measurements of 2 features each");
        throw;
      },
      Error);
  std::vector<double> negative{1e-3, -1};
  EXPECT_THROW(model.fit(rows, 2, negative), Error);
  std::vector<double> fine{1e-3, 2e-3};
  model.fit(rows, 2, fine);
  EXPECT_TRUE(model.trained());
  EXPECT_THROW(
      try { (void)model.predict(rows, 4); } catch (Error const& e) {
        EXPECT_STREQ(e.what(), "cost model: rows of 4 features, trained on 2");
        throw;
      },
      Error);
}

}  // namespace
}  // namespace autograph::tuning
