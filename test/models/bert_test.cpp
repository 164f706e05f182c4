#include <autograph/models/bert.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(Bert, ParametersAndMacsMatchTheDerivedFigures) {
  Graph<> g = bert();
  EXPECT_NO_THROW(validate(g));
  // Per layer, H = 1024: the Q, K, V and output weights, 4 * H * H = 4,194,304 (no biases),
  // x 8 layers = 33,554,432.
  constexpr std::int64_t H = 1024;
  static_assert(4 * H * H == 4'194'304);
  EXPECT_EQ(trainable_parameters(g), 8 * 4 * H * H);
  EXPECT_EQ(trainable_parameters(g), 33'554'432);
  // MACs for 64 tokens, 16 heads of 64:
  //   x Wq, x Wk, x Wv, x Wo   4 * 64 * H * H        = 268,435,456
  //   q k, logits v            2 * 16 * 64 * 64 * 64 =   8,388,608
  //                                                    276,824,064 per layer, 2,214,592,512 in all
  constexpr double per_layer_macs = 4.0 * 64 * H * H + 2.0 * 16 * 64 * 64 * 64;
  static_assert(per_layer_macs == 276'824'064.0);
  EXPECT_DOUBLE_EQ(graph_stats(g).macs, 8 * per_layer_macs);
}

TEST(Bert, TasosEightLayersOfAttentionMatmuls) {
  Graph<> g = bert();
  EXPECT_EQ(input_shape(g), (Shape{64, 1024}));
  // The last layer's result, then the eight attention results nothing reads.
  ASSERT_EQ(g.outputs().size(), 9u);
  for (Value v : g.outputs()) EXPECT_EQ(g.desc(v).shape, (Shape{64, 1024}));
  EXPECT_EQ(g[g.outputs()[0].node].name, "layer.7/linear");
  for (std::size_t l = 0; l < 8; ++l) EXPECT_EQ(g[g.outputs()[l + 1].node].name, "layer." + std::to_string(l) + "/attention");
  // Per layer: 4 weight matmuls and 2 batched ones, 4 reshapes, 4 transposes; nothing else.
  EXPECT_EQ(count_ops<MatMul>(g), 8u * 6);
  EXPECT_EQ(count_ops<Reshape>(g), 8u * 4);
  EXPECT_EQ(count_ops<Transpose>(g), 8u * 4);
  EXPECT_EQ(count_ops<Weight>(g), 8u * 4);
  EXPECT_EQ(g.num_nodes(), 1 + 8u * (6 + 4 + 4 + 4));
  EXPECT_EQ(shape_named(g, "layer.0/query"), (Shape{64, 1024}));
  EXPECT_EQ(shape_named(g, "layer.0/query_reshape"), (Shape{64, 16, 64}));
  EXPECT_EQ(shape_named(g, "layer.0/key_transpose"), (Shape{16, 64, 64}));
  EXPECT_EQ(shape_named(g, "layer.7/logits"), (Shape{16, 64, 64}));
  EXPECT_EQ(shape_named(g, "layer.7/context_transpose"), (Shape{64, 16, 64}));
  // The next layer reads the output matmul alone, which reads the layer's input.
  auto const& linear = node_named(g, "layer.0/linear");
  EXPECT_TRUE(g[linear.inputs[0].node].is<Input>());
  // The longest path: 7 output matmuls, then the last layer's attention branch (its query
  // matmul, reshape, transpose, logits, context, transpose, reshape). The widest set: the
  // q, k and v lanes of all 8 branches and the last output matmul, 3 * 8 + 1.
  auto stats = graph_stats(g);
  EXPECT_EQ(stats.critical_path, 7u + 7);
  EXPECT_EQ(stats.width, 3u * 8 + 1);
}

TEST(Bert, BatchAddsALeadingDimension) {
  Graph<> g = bert({.batch = 2});
  EXPECT_NO_THROW(validate(g));
  EXPECT_EQ(input_shape(g), (Shape{2, 64, 1024}));
  EXPECT_EQ(output_shape(g), (Shape{2, 64, 1024}));
  EXPECT_EQ(shape_named(g, "layer.3/logits"), (Shape{2, 16, 64, 64}));
  EXPECT_EQ(trainable_parameters(g), 33'554'432);
  EXPECT_DOUBLE_EQ(graph_stats(g).macs, 2 * graph_stats(bert()).macs);
  EXPECT_EQ(bert({.batch = 1}).num_nodes(), bert().num_nodes());
  EXPECT_EQ(input_shape(bert({.batch = 1})), (Shape{64, 1024}));
}

TEST(Bert, HeadWidthMustEqualTheTokens) {
  EXPECT_THROW(bert(BertConfig{.tokens = 32}), Error);
  EXPECT_THROW(bert(BertConfig{.heads = 3}), Error);
  EXPECT_NO_THROW(bert(BertConfig{.tokens = 128, .heads = 8}));
}

/// One sequence through TASO's layers written as loops: x [T, H] row-major; returns the
/// outputs in the graph's order (the last x, then each layer's attention result).
std::vector<std::vector<float>> naive_bert(Graph<> const& g, std::vector<float> x, std::int64_t layers, std::int64_t T, std::int64_t H,
                                           std::int64_t heads) {
  std::int64_t d = H / heads;
  auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
  auto times = [&](std::vector<float> const& a, std::string const& weight) {
    Tensor w = weight_named(g, weight);
    std::vector<float> y(at(T * H));
    for (std::int64_t r = 0; r < T; ++r)
      for (std::int64_t j = 0; j < H; ++j) {
        double acc = 0;
        for (std::int64_t k = 0; k < H; ++k) acc += double(a[at(r * H + k)]) * w.data()[at(k * H + j)];
        y[at(r * H + j)] = static_cast<float>(acc);
      }
    return y;
  };
  std::vector<std::vector<float>> attention;
  for (std::int64_t l = 0; l < layers; ++l) {
    std::string p = "layer." + std::to_string(l) + "/";
    auto q = times(x, p + "query.weight"), k = times(x, p + "key.weight"), v = times(x, p + "value.weight");
    // Head h of q is the [T, d] block q[t][h*d + e]; TASO multiplies q_h by k_h as it is.
    std::vector<float> out(at(T * H));
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t i = 0; i < T; ++i) {
        std::vector<double> logits(at(T));
        for (std::int64_t j = 0; j < T; ++j)
          for (std::int64_t m = 0; m < d; ++m) logits[at(j)] += double(q[at(i * H + h * d + m)]) * k[at(m * H + h * d + j)];
        for (std::int64_t e = 0; e < d; ++e) {
          double acc = 0;
          for (std::int64_t j = 0; j < T; ++j) acc += logits[at(j)] * v[at(j * H + h * d + e)];
          out[at(i * H + h * d + e)] = static_cast<float>(acc);
        }
      }
    attention.push_back(out);
    x = times(x, p + "linear.weight");
  }
  attention.insert(attention.begin(), x);
  return attention;
}

TEST(Bert, SmallConfigurationComputesWhatTasosGraphComputes) {
  BertConfig c{.layers = 2, .tokens = 4, .hidden = 8, .heads = 2};
  for (std::int64_t batch : {1, 3}) {
    SCOPED_TRACE(batch);
    Graph<> g = bert(c, {.batch = batch, .weight_seed = 5});
    Tensor x = batch == 1 ? Tensor::random({4, 8}, 11) : Tensor::random({batch, 4, 8}, 11);
    auto got = ReferenceExecutor<>().run(g, {x});
    ASSERT_EQ(got.size(), 3u);
    for (std::int64_t s = 0; s < batch; ++s) {
      std::size_t from = static_cast<std::size_t>(s * 32);
      auto want = naive_bert(g, std::vector<float>(x.data().begin() + from, x.data().begin() + from + 32), 2, 4, 8, 2);
      for (std::size_t o = 0; o < 3; ++o)
        for (std::size_t i = 0; i < 32; ++i)
          ASSERT_NEAR(got[o].data()[from + i], want[o][i], 1e-4f * (1 + std::fabs(want[o][i]))) << "sequence " << s << " output " << o << " element " << i;
    }
  }
}

TEST(Bert, RunsOnTheReferenceExecutor) {
  Graph<> g = bert({.weight_seed = 8});
  auto out = run_random(g);
  ASSERT_EQ(out.size(), 9u);
  for (auto const& t : out) {
    EXPECT_EQ(t.shape(), (Shape{64, 1024}));
    EXPECT_EQ(non_finite(t), 0u) << "of " << t.numel() << " outputs";
  }
}

}  // namespace
}  // namespace autograph::models
