#include <autograph/models/rnntc_sru.hpp>

#include <cmath>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(RnntcSru, ParametersAndMacsMatchTheDerivedFigures) {
  Graph<> g = rnntc_sru();
  EXPECT_NO_THROW(validate(g));
  // vocab V = 1024, hidden H = 1024, 2 classes, 10 steps, batch 1:
  //   embedding V*H + W, W_f, W_r 3*H*H + b_f, b_r 2*H + classifier H*2 + 2  = 4,198,402
  //   MACs: 10 * (V*H + 3*H*H) + H*2                                          = 41,945,088
  constexpr std::int64_t V = 1024, H = 1024;
  EXPECT_EQ(trainable_parameters(g), V * H + 3 * H * H + 2 * H + H * 2 + 2);
  EXPECT_EQ(trainable_parameters(g), 4'198'402);
  EXPECT_DOUBLE_EQ(graph_stats(g).macs, 10.0 * (V * H + 3 * H * H) + H * 2);
}

TEST(RnntcSru, TenStepsOfThreeIndependentMatmuls) {
  Graph<> g = rnntc_sru();
  EXPECT_EQ(input_shape(g), (Shape{10, 1, 1024}));
  EXPECT_EQ(output_shape(g), (Shape{1, 2}));
  EXPECT_EQ(count_ops<MatMul>(g), 1u + 10 * 3 + 1);  // embedding, per-step projections, classifier
  EXPECT_EQ(count_ops<Tanh>(g), 10u);
  EXPECT_EQ(count_ops<Sigmoid>(g), 20u);
  // The 30 projections depend only on the embedding: all of them can run at once.
  EXPECT_EQ(graph_stats(g).width, 30u);
  // The recurrence is a chain through the 10 cells.
  EXPECT_EQ(count_named(g, "/cell"), 9u);  // step 0 has c_0 = 0 and no add
}

TEST(RnntcSru, ComputesTheSruEquations) {
  SruConfig c{.steps = 4, .hidden = 6, .vocab = 7, .num_classes = 3};
  Graph<> g = rnntc_sru(c, {.batch = 2, .weight_seed = 31});
  // Token ids per (step, sequence), as one-hot rows.
  int const ids[4][2] = {{1, 5}, {0, 0}, {6, 2}, {3, 4}};
  Tensor tokens({4, 2, 7});
  for (int t = 0; t < 4; ++t)
    for (int b = 0; b < 2; ++b) tokens.mutable_data()[static_cast<std::size_t>((t * 2 + b) * 7 + ids[t][b])] = 1.f;
  auto out = ReferenceExecutor<>().run(g, {tokens});

  Tensor E = weight_named(g, "embedding.weight"), W = weight_named(g, "sru.weight"), Wf = weight_named(g, "sru.weight_f"),
         Wr = weight_named(g, "sru.weight_r"), bf = weight_named(g, "sru.bias_f"), br = weight_named(g, "sru.bias_r"),
         Wc = weight_named(g, "classifier.weight"), bc = weight_named(g, "classifier.bias");
  auto at = [](Tensor const& m, std::int64_t i, std::int64_t j) { return double(m.data()[static_cast<std::size_t>(i * m.shape()[1] + j)]); };
  auto sigmoid = [](double v) { return 1 / (1 + std::exp(-v)); };
  for (int b = 0; b < 2; ++b) {
    std::vector<double> cell(6, 0.0), h(6);
    for (int t = 0; t < 4; ++t) {
      std::vector<double> x(6);
      for (int j = 0; j < 6; ++j) x[j] = at(E, ids[t][b], j);
      for (int j = 0; j < 6; ++j) {
        double xt = 0, f = bf.data()[j], r = br.data()[j];
        for (int k = 0; k < 6; ++k) {
          xt += x[k] * at(W, k, j);
          f += x[k] * at(Wf, k, j);
          r += x[k] * at(Wr, k, j);
        }
        f = sigmoid(f);
        r = sigmoid(r);
        cell[j] = f * cell[j] + (1 - f) * xt;
        h[j] = r * std::tanh(cell[j]) + (1 - r) * x[j];
      }
    }
    std::vector<double> logits(3);
    double mx = -1e300, z = 0;
    for (int k = 0; k < 3; ++k) {
      logits[k] = bc.data()[k];
      for (int j = 0; j < 6; ++j) logits[k] += h[j] * at(Wc, j, k);
      mx = std::max(mx, logits[k]);
    }
    for (auto& l : logits) z += (l = std::exp(l - mx));
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(out[0].data()[static_cast<std::size_t>(b * 3 + k)], logits[k] / z, 1e-5) << b << "," << k;
  }
}

TEST(RnntcSru, RunsOnTheReferenceExecutor) { expect_runs(rnntc_sru({.weight_seed = 2}), Shape{1, 2}); }

}  // namespace
}  // namespace autograph::models
