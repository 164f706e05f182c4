#pragma once
// Inception-v3 as torchvision builds it for inference (torchvision.models.inception_v3,
// transform_input=False): a stem of five BasicConv2d and two max pools, then 11 Inception
// blocks: Mixed_5b/5c/5d (A), Mixed_6a (B, grid reduction), Mixed_6b..6e (C, the factorized
// 1x7/7x1 branches), Mixed_7a (D, grid reduction), Mixed_7b/7c (E, the 1x3/3x1 branches that
// fan out and concatenate), global average pool, a 1000-way fully connected layer.
// BasicConv2d = conv (no bias) + BatchNorm (eps 0.001) + ReLU. Average pools in the blocks are
// 3x3/1 pad 1 counting the padding (F.avg_pool2d's default).
//
// The auxiliary classifier (AuxLogits, after Mixed_6e) runs only in training, so the inference
// graph leaves it out; torchvision's published 27,161,264 parameters include it (see the test).
// Published MACs (torchvision, inference): 5.71 G at 299.
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {
namespace detail {

class InceptionV3Builder {
 public:
  explicit InceptionV3Builder(GraphBuilder<>& b) : b_(b) {}

  /// BasicConv2d: conv [kh, kw] with stride and symmetric padding, BN(eps 0.001), ReLU.
  Value conv(Value x, std::int64_t out, std::array<std::int64_t, 2> k, std::string const& name, std::int64_t stride = 1,
             std::array<std::int64_t, 2> pad = {0, 0}) {
    auto s = b_.scope(name);
    Value y = b_.conv2d(x, out, k, {.stride = {stride, stride}, .pad = pad2(pad[0], pad[1])}, "conv");
    return b_.relu(b_.batch_norm(y, 0.001f, "bn"), "relu");
  }
  Value avg_pool_3x3(Value x) {
    return b_.avg_pool(x, {3, 3}, {.stride = {1, 1}, .pad = pad2(1, 1), .count_include_pad = true}, "branch_pool_avg");
  }
  Value max_pool_3x3_s2(Value x, std::string const& name) { return b_.max_pool(x, {3, 3}, {.stride = {2, 2}}, name); }

  Value block_a(Value x, std::int64_t pool_features) {
    Value b1 = conv(x, 64, {1, 1}, "branch1x1");
    Value b5 = conv(conv(x, 48, {1, 1}, "branch5x5_1"), 64, {5, 5}, "branch5x5_2", 1, {2, 2});
    Value b3 = conv(x, 64, {1, 1}, "branch3x3dbl_1");
    b3 = conv(b3, 96, {3, 3}, "branch3x3dbl_2", 1, {1, 1});
    b3 = conv(b3, 96, {3, 3}, "branch3x3dbl_3", 1, {1, 1});
    Value bp = conv(avg_pool_3x3(x), pool_features, {1, 1}, "branch_pool");
    return b_.concat({b1, b5, b3, bp}, 1, "concat");
  }
  Value block_b(Value x) {
    Value b3 = conv(x, 384, {3, 3}, "branch3x3", 2);
    Value bd = conv(x, 64, {1, 1}, "branch3x3dbl_1");
    bd = conv(bd, 96, {3, 3}, "branch3x3dbl_2", 1, {1, 1});
    bd = conv(bd, 96, {3, 3}, "branch3x3dbl_3", 2);
    Value bp = max_pool_3x3_s2(x, "branch_pool");
    return b_.concat({b3, bd, bp}, 1, "concat");
  }
  Value block_c(Value x, std::int64_t c7) {
    Value b1 = conv(x, 192, {1, 1}, "branch1x1");
    Value b7 = conv(x, c7, {1, 1}, "branch7x7_1");
    b7 = conv(b7, c7, {1, 7}, "branch7x7_2", 1, {0, 3});
    b7 = conv(b7, 192, {7, 1}, "branch7x7_3", 1, {3, 0});
    Value bd = conv(x, c7, {1, 1}, "branch7x7dbl_1");
    bd = conv(bd, c7, {7, 1}, "branch7x7dbl_2", 1, {3, 0});
    bd = conv(bd, c7, {1, 7}, "branch7x7dbl_3", 1, {0, 3});
    bd = conv(bd, c7, {7, 1}, "branch7x7dbl_4", 1, {3, 0});
    bd = conv(bd, 192, {1, 7}, "branch7x7dbl_5", 1, {0, 3});
    Value bp = conv(avg_pool_3x3(x), 192, {1, 1}, "branch_pool");
    return b_.concat({b1, b7, bd, bp}, 1, "concat");
  }
  Value block_d(Value x) {
    Value b3 = conv(conv(x, 192, {1, 1}, "branch3x3_1"), 320, {3, 3}, "branch3x3_2", 2);
    Value b7 = conv(x, 192, {1, 1}, "branch7x7x3_1");
    b7 = conv(b7, 192, {1, 7}, "branch7x7x3_2", 1, {0, 3});
    b7 = conv(b7, 192, {7, 1}, "branch7x7x3_3", 1, {3, 0});
    b7 = conv(b7, 192, {3, 3}, "branch7x7x3_4", 2);
    Value bp = max_pool_3x3_s2(x, "branch_pool");
    return b_.concat({b3, b7, bp}, 1, "concat");
  }
  /// `flat`: the six outputs concatenated at once, as IOS's inception_e() does (one identity of
  /// six terms), where torchvision concatenates each 1x3/3x1 pair first.
  Value block_e(Value x, bool flat = false) {
    Value b1 = conv(x, 320, {1, 1}, "branch1x1");
    Value b3 = conv(x, 384, {1, 1}, "branch3x3_1");
    Value b3a = conv(b3, 384, {1, 3}, "branch3x3_2a", 1, {0, 1}), b3b = conv(b3, 384, {3, 1}, "branch3x3_2b", 1, {1, 0});
    Value bd = conv(x, 448, {1, 1}, "branch3x3dbl_1");
    bd = conv(bd, 384, {3, 3}, "branch3x3dbl_2", 1, {1, 1});
    Value bda = conv(bd, 384, {1, 3}, "branch3x3dbl_3a", 1, {0, 1}), bdb = conv(bd, 384, {3, 1}, "branch3x3dbl_3b", 1, {1, 0});
    Value bp = conv(avg_pool_3x3(x), 192, {1, 1}, "branch_pool");
    if (flat) return b_.concat({b1, b3a, b3b, bda, bdb, bp}, 1, "concat");
    return b_.concat({b1, b_.concat({b3a, b3b}, 1, "branch3x3_concat"), b_.concat({bda, bdb}, 1, "branch3x3dbl_concat"), bp}, 1, "concat");
  }

 private:
  GraphBuilder<>& b_;
};

}  // namespace detail

namespace detail {
/// Inception-v3's layers; `ios`: as IOS's inception_v3.py builds them (E blocks concatenated flat,
/// the network ending at the global average pool, no classifier).
inline Graph<> inception_v3_network(ModelOptions const& o, std::string const& model, bool ios) {
  std::int64_t n = detail::batch_of(o, model);
  std::int64_t side = detail::resolution_of(o, model, 299, 75);
  auto b = detail::builder_for(o);
  detail::InceptionV3Builder m(b);
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  x = m.conv(x, 32, {3, 3}, "Conv2d_1a_3x3", 2);
  x = m.conv(x, 32, {3, 3}, "Conv2d_2a_3x3");
  x = m.conv(x, 64, {3, 3}, "Conv2d_2b_3x3", 1, {1, 1});
  x = m.max_pool_3x3_s2(x, "maxpool1");
  x = m.conv(x, 80, {1, 1}, "Conv2d_3b_1x1");
  x = m.conv(x, 192, {3, 3}, "Conv2d_4a_3x3");
  x = m.max_pool_3x3_s2(x, "maxpool2");
  auto block = [&](std::string const& name, auto&& f) {
    auto s = b.scope(name);
    x = f(x);
  };
  block("Mixed_5b", [&](Value v) { return m.block_a(v, 32); });
  block("Mixed_5c", [&](Value v) { return m.block_a(v, 64); });
  block("Mixed_5d", [&](Value v) { return m.block_a(v, 64); });
  block("Mixed_6a", [&](Value v) { return m.block_b(v); });
  block("Mixed_6b", [&](Value v) { return m.block_c(v, 128); });
  block("Mixed_6c", [&](Value v) { return m.block_c(v, 160); });
  block("Mixed_6d", [&](Value v) { return m.block_c(v, 160); });
  block("Mixed_6e", [&](Value v) { return m.block_c(v, 192); });
  block("Mixed_7a", [&](Value v) { return m.block_d(v); });
  block("Mixed_7b", [&](Value v) { return m.block_e(v, ios); });
  block("Mixed_7c", [&](Value v) { return m.block_e(v, ios); });
  x = b.global_avg_pool(x, "avgpool");
  if (ios) return detail::finish(std::move(b), {x}, o);
  Value logits = b.linear(detail::flatten(b, x), 1000, true, Activation::none, "fc");
  return detail::finish(std::move(b), {logits}, o);
}
}  // namespace detail

/// Inception-v3, input [batch, 3, 299, 299] by default (75 is the smallest side it accepts);
/// output [batch, 1000] logits.
inline Graph<> inception_v3(ModelOptions const& o = {}) { return detail::inception_v3_network(o, "inception_v3", false); }

/// Inception-v3 as the IOS work builds and times it (mit-han-lab/inter-operator-scheduler,
/// python/ios/models/inception_v3.py): the same layers, but each E block concatenates its six
/// outputs at once (inception_e's identity of six terms) and the network ends at the global
/// average pool (inception_logits), with no classifier. Output [batch, 2048, 1, 1]. IOS's convs
/// have a bias and a ReLU where these have a BatchNorm and a ReLU: the same kernels once the
/// norms are folded, as every simulated engine does.
inline Graph<> inception_v3_ios(ModelOptions const& o = {}) { return detail::inception_v3_network(o, "inception_v3_ios", true); }

/// Inception-v3's last block (Mixed_7c, an E block) alone, as IOS builds it (its six outputs
/// concatenated at once: inception_v3_ios), on the map the block before it gives it: input
/// [batch, 2048, 8, 8] by default (`resolution` sets the map's side, 1 at least), output
/// [batch, 2048, 8, 8]. The IOS thesis schedules this block by itself (its Figure 4.7: the
/// schedules IOS finds for it at batch 1 and at batch 32), so validate-sim runs those records
/// on it.
inline Graph<> inception_v3_last_block(ModelOptions const& o = {}) {
  std::int64_t n = detail::batch_of(o, "inception_v3_last_block");
  std::int64_t side = detail::resolution_of(o, "inception_v3_last_block", 8, 1);
  auto b = detail::builder_for(o);
  detail::InceptionV3Builder m(b);
  Value x = b.input("Mixed_7b", {n, 2048, side, side}, o.dtype);
  {
    auto s = b.scope("Mixed_7c");
    x = m.block_e(x, true);
  }
  return detail::finish(std::move(b), {x}, o);
}

}  // namespace autograph::models
