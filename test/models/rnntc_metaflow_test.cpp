#include <autograph/models/rnntc_metaflow.hpp>

#include <cmath>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(RnntcMetaflow, ParametersAndMacsAsMetaflowsCodeBuildsIt) {
  Graph<> g = rnntc_metaflow();
  EXPECT_NO_THROW(validate(g));
  // sru.h: LENGTH 20 steps of three 1024 x 1024 products, each with a weight of its own, batch 1.
  EXPECT_EQ(trainable_parameters(g), 20 * 3 * 1024 * 1024);
  EXPECT_EQ(trainable_parameters(g), 62'914'560);
  EXPECT_DOUBLE_EQ(graph_stats(g).macs, 62'914'560.0);
  EXPECT_EQ(input_shape(g), (Shape{1, 1, 1024}));
}

TEST(RnntcMetaflow, EveryStepReadsTheOneInputAndTheCellIsTheOnlyRecurrence) {
  Graph<> g = rnntc_metaflow();
  EXPECT_EQ(count_ops<MatMul>(g), 60u);
  EXPECT_EQ(count_ops<Sigmoid>(g), 40u);
  EXPECT_EQ(count_ops<Mul>(g), 80u);
  EXPECT_EQ(count_ops<Add>(g), 40u);
  EXPECT_EQ(count_ops<Tanh>(g), 0u);
  EXPECT_EQ(g.outputs().size(), 21u);  // every h_t and the last c
  // The 60 products read only the input: all of them can run at once.
  EXPECT_EQ(graph_stats(g).width, 60u);
}

TEST(RnntcMetaflow, ComputesMetaflowsCell) {
  constexpr int steps = 3, H = 4, N = 2;
  Graph<> g = rnntc_metaflow({.steps = steps, .hidden = H}, {.batch = N, .weight_seed = 17});
  Tensor x({1, N, H});
  for (std::size_t i = 0; i < static_cast<std::size_t>(x.numel()); ++i) x.mutable_data()[i] = 0.25f * static_cast<float>(i % 7) - 0.6f;
  auto out = ReferenceExecutor<>().run(g, {x});
  ASSERT_EQ(out.size(), static_cast<std::size_t>(steps + 1));
  auto at = [](Tensor const& m, std::int64_t i, std::int64_t j) { return double(m.data()[static_cast<std::size_t>(i * m.shape()[1] + j)]); };
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (int b = 0; b < N; ++b) {
    std::vector<double> xb(H), cell(H);
    for (int j = 0; j < H; ++j) cell[j] = xb[j] = x.data()[static_cast<std::size_t>(b * H + j)];
    for (int t = 0; t < steps; ++t) {
      std::string step = "step" + std::to_string(t) + "/";
      Tensor W1 = weight_named(g, step + "x1.weight"), W2 = weight_named(g, step + "x2.weight"), W3 = weight_named(g, step + "x3.weight");
      for (int j = 0; j < H; ++j) {
        double x1 = 0, f = 0, r = 0;
        for (int k = 0; k < H; ++k) {
          x1 += xb[k] * at(W1, k, j);
          f += xb[k] * at(W2, k, j);
          r += xb[k] * at(W3, k, j);
        }
        f = sigmoid(f);
        r = sigmoid(r);
        cell[j] = f * cell[j] + f * x1;
        double h = r * cell[j] + r * xb[j];
        EXPECT_NEAR(out[static_cast<std::size_t>(t)].data()[static_cast<std::size_t>(b * H + j)], h, 1e-5) << t << "," << b << "," << j;
      }
    }
    for (int j = 0; j < H; ++j) EXPECT_NEAR(out[steps].data()[static_cast<std::size_t>(b * H + j)], cell[j], 1e-5) << b << "," << j;
  }
}

TEST(RnntcMetaflow, RejectsAnEmptyLayer) {
  EXPECT_THROW(rnntc_metaflow({.steps = 0}), Error);
  EXPECT_THROW(rnntc_metaflow({.steps = 2, .hidden = 0}), Error);
}

}  // namespace
}  // namespace autograph::models
