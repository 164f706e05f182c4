#include <autograph/models/bert_encoder.hpp>

#include <cmath>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(BertEncoder, ParametersAndMacsMatchTheDerivedFigures) {
  Graph<> g = bert_encoder();
  EXPECT_NO_THROW(validate(g));
  // Per layer, H = 1024, F = 4096:
  //   Q, K, V, output projections   4 (H*H + H)        = 4,198,400
  //   two LayerNorms                2 * 2H             =     4,096
  //   FFN                           H*F + F + F*H + H  = 8,393,728
  //                                                     12,596,224   x 8 layers = 100,769,792
  constexpr std::int64_t H = 1024, F = 4096;
  constexpr std::int64_t per_layer = 4 * (H * H + H) + 2 * 2 * H + (H * F + F + F * H + H);
  static_assert(per_layer == 12'596'224);
  EXPECT_EQ(trainable_parameters(g), 8 * per_layer);
  // MACs for 16 sequences x 64 tokens (1024 tokens), 16 heads of 64:
  //   projections  4 * 1024 * H * H            = 4,294,967,296
  //   q k^T, p v   2 * 16 * 16 * 64 * 64 * 64  =   134,217,728
  //   FFN          2 * 1024 * H * F            = 8,589,934,592
  //                                             13,019,119,616 per layer, 104,152,956,928 in all
  constexpr double per_layer_macs = 4.0 * 1024 * H * H + 2.0 * 16 * 16 * 64 * 64 * 64 + 2.0 * 1024 * H * F;
  EXPECT_DOUBLE_EQ(graph_stats(g).macs, 8 * per_layer_macs);
}

TEST(BertEncoder, EightLayersOfSixteenHeadAttention) {
  Graph<> g = bert_encoder();
  EXPECT_EQ(input_shape(g), (Shape{16, 64, 1024}));
  EXPECT_EQ(output_shape(g), (Shape{16, 64, 1024}));
  EXPECT_EQ(count_ops<Softmax>(g), 8u);
  EXPECT_EQ(count_ops<Gelu>(g), 8u);
  EXPECT_EQ(count_ops<LayerNorm>(g), 16u);
  EXPECT_EQ(count_ops<MatMul>(g), 8u * 8);  // q, k, v, scores, context, output, FFN x2
  EXPECT_EQ(shape_named(g, "encoder.layer.7/attention/scores"), (Shape{16, 16, 64, 64}));
  // Q, K and V read the same tensor: the graph width is 3.
  EXPECT_EQ(graph_stats(g).width, 3u);
}

/// One BERT layer written as loops, for a check of the graph's reshapes and transposes.
struct NaiveBert {
  Graph<> const& g;
  std::int64_t B, T, H, heads, F;

  std::vector<float> linear(std::vector<float> const& x, std::string const& name, std::int64_t in, std::int64_t out) const {
    Tensor w = weight_named(g, name + ".weight"), bias = weight_named(g, name + ".bias");
    std::vector<float> y(x.size() / static_cast<std::size_t>(in) * static_cast<std::size_t>(out));
    for (std::size_t r = 0; r < x.size() / static_cast<std::size_t>(in); ++r)
      for (std::int64_t j = 0; j < out; ++j) {
        double acc = bias.data()[static_cast<std::size_t>(j)];
        for (std::int64_t k = 0; k < in; ++k) acc += double(x[r * in + k]) * w.data()[static_cast<std::size_t>(k * out + j)];
        y[r * out + j] = static_cast<float>(acc);
      }
    return y;
  }
  std::vector<float> layer_norm(std::vector<float> x, std::string const& name) const {
    Tensor gamma = weight_named(g, name + ".gamma"), beta = weight_named(g, name + ".beta");
    for (std::size_t r = 0; r < x.size() / static_cast<std::size_t>(H); ++r) {
      double mean = 0, var = 0;
      for (std::int64_t k = 0; k < H; ++k) mean += x[r * H + k];
      mean /= static_cast<double>(H);
      for (std::int64_t k = 0; k < H; ++k) var += (x[r * H + k] - mean) * (x[r * H + k] - mean);
      var /= static_cast<double>(H);
      for (std::int64_t k = 0; k < H; ++k)
        x[r * H + k] = static_cast<float>((x[r * H + k] - mean) / std::sqrt(var + 1e-12) * gamma.data()[static_cast<std::size_t>(k)] +
                                          beta.data()[static_cast<std::size_t>(k)]);
    }
    return x;
  }
  std::vector<float> layer(std::vector<float> const& x, std::string const& p) const {
    auto q = linear(x, p + "/attention/query", H, H), k = linear(x, p + "/attention/key", H, H), v = linear(x, p + "/attention/value", H, H);
    std::int64_t d = H / heads;
    std::vector<float> ctx(x.size());
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t i = 0; i < T; ++i) {
          std::vector<double> s(static_cast<std::size_t>(T));
          double mx = -1e300, z = 0;
          for (std::int64_t j = 0; j < T; ++j) {
            double dot = 0;
            for (std::int64_t e = 0; e < d; ++e) dot += double(q[(b * T + i) * H + h * d + e]) * k[(b * T + j) * H + h * d + e];
            s[static_cast<std::size_t>(j)] = dot / std::sqrt(static_cast<double>(d));
            mx = std::max(mx, s[static_cast<std::size_t>(j)]);
          }
          for (auto& e : s) z += (e = std::exp(e - mx));
          for (std::int64_t e = 0; e < d; ++e) {
            double acc = 0;
            for (std::int64_t j = 0; j < T; ++j) acc += s[static_cast<std::size_t>(j)] / z * v[(b * T + j) * H + h * d + e];
            ctx[(b * T + i) * H + h * d + e] = static_cast<float>(acc);
          }
        }
    auto a = linear(ctx, p + "/attention/output.dense", H, H);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += x[i];
    a = layer_norm(a, p + "/attention/output.LayerNorm");
    auto f = linear(a, p + "/intermediate.dense", H, F);
    for (auto& e : f) e = 0.5f * e * (1.f + std::erf(e / std::sqrt(2.f)));
    f = linear(f, p + "/output.dense", F, H);
    for (std::size_t i = 0; i < f.size(); ++i) f[i] += a[i];
    return layer_norm(f, p + "/output.LayerNorm");
  }
};

TEST(BertEncoder, SmallConfigurationComputesWhatBertComputes) {
  BertEncoderConfig c{.layers = 2, .hidden = 8, .heads = 2, .ffn = 16, .tokens = 5};
  Graph<> g = bert_encoder(c, {.batch = 3, .weight_seed = 17});
  Tensor x = Tensor::random({3, 5, 8}, 99);
  auto out = ReferenceExecutor<>().run(g, {x});
  NaiveBert naive{g, 3, 5, 8, 2, 16};
  std::vector<float> want(x.data().begin(), x.data().end());
  for (int l = 0; l < 2; ++l) want = naive.layer(want, "encoder.layer." + std::to_string(l));
  ASSERT_EQ(out[0].numel(), static_cast<std::int64_t>(want.size()));
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(out[0].data()[i], want[i], 1e-4f) << "element " << i;
}

TEST(BertEncoder, RunsOnTheReferenceExecutor) {
  // One sequence instead of 16 keeps it quick; all 8 full-width layers run.
  expect_runs(bert_encoder({.batch = 1, .weight_seed = 8}), Shape{1, 64, 1024});
}

}  // namespace
}  // namespace autograph::models
