#pragma once
// SETR (Zheng et al., CVPR 2021) as its authors' code builds it for inference
// (fudan-zvg/SETR: mmseg/models/backbones/vit.py, decode_heads/vit_up_head.py; configs
// SETR_Naive_Base_768x768, SETR_Naive_768x768, SETR_PUP_768x768 for Cityscapes, 19 classes), the
// AutoGTCO paper's SETR-Naive-Base, SETR-Naive and SETR-PUP at [1, 3, 384, 384] (Table I):
//
//   encoder  ViT-B/16 (12 blocks, 768 wide) or ViT-L/16 (24 blocks, 1024 wide): the patch conv,
//            class token, position embedding [1, 1 + (side/16)^2, hidden] and pre-LN blocks of
//            vit.hpp; the backbone has no final LayerNorm
//   head     drop the class token, LN (eps 1e-6), tokens -> [N, hidden, side/16, side/16], then
//     Naive  conv1x1(hidden -> 256, +bias), BN, ReLU, conv1x1(256 -> 19, +bias), bilinear
//            upsample x16 to the input size
//     PUP    3 x [conv3x3(-> 256, +bias), BN, ReLU, bilinear x2], conv3x3(256 -> 256), BN, ReLU,
//            conv1x1(256 -> 19), bilinear x2
//   output   per-pixel class logits [N, 19, side, side]
// Bilinear resizes are PyTorch's align_corners=False (ONNX pytorch_half_pixel). BatchNorm eps 1e-5.
// The training-only auxiliary heads (three or four more heads on intermediate blocks, for the
// auxiliary losses) are not part of the inference graph.
//
// Parameters at 384 (derived in setr_test.cpp): setr_naive_base 86,292,755, setr_naive
// 303,958,547, setr_pup 307,827,475. The paper's 87.69 M, 305.67 M and 310.57 M are the SETR
// paper's Table figures for its 768x768 Cityscapes models; setr_test.cpp shows which parts the
// difference can and cannot be.
#include <string>

#include "autograph/models/vit.hpp"

namespace autograph::models {

enum class SetrHead { naive, pup };

struct SetrConfig {
  VitConfig encoder{.patch = 16, .layers = 24, .hidden = 1024, .heads = 16, .mlp = 4096};
  SetrHead head = SetrHead::naive;
  std::int64_t channels = 256;     // the head's conv width
  std::int64_t num_classes = 19;   // Cityscapes
};

namespace detail {

/// F.interpolate(x, size=(h, w), mode='bilinear', align_corners=False).
inline Value bilinear_resize(GraphBuilder<>& b, Value x, std::int64_t h, std::int64_t w, std::string const& name) {
  auto const& s = b.shape(x);
  return b.add(Resize{.sizes = {s[0], s[1], h, w}, .mode = ResizeMode::linear, .coordinate = ResizeCoordinate::pytorch_half_pixel}, {x}, name);
}

/// conv (+bias), BN, ReLU: one stage of SETR's heads (conv_i, syncbn_fc_i).
inline Value setr_conv_bn_relu(GraphBuilder<>& b, Value x, std::int64_t out, std::int64_t k, int i) {
  std::string id = std::to_string(i);
  Value y = b.conv2d(x, out, {k, k}, {.pad = pad2(k / 2, k / 2), .bias = true}, "conv_" + id);
  return b.relu(b.batch_norm(y, 1e-5f, "syncbn_fc_" + id), "relu_" + id);
}

}  // namespace detail

/// SETR with the given encoder and head; input [batch, 3, side, side] (side a multiple of the
/// patch, 384 by default); output [batch, num_classes, side, side].
inline Graph<> setr(SetrConfig const& c, ModelOptions const& o = {}, std::string const& model = "setr") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = vit_side(c.encoder, o, model, 384);
  if (c.channels < 1 || c.num_classes < 1) throw Error(model + ": channels and num_classes must be >= 1");
  std::int64_t grid = side / c.encoder.patch;
  auto b = builder_for(o);
  Value x = vit_encoder(b, b.input("image", {n, 3, side, side}, o.dtype), c.encoder);
  {
    auto s = b.scope("decode_head");
    x = b.add(Slice{{1}, {1}, {grid * grid + 1}, {}}, {x}, "drop_class_token");
    x = b.layer_norm(x, 1e-6f, "norm");
    x = b.reshape(b.transpose(x, {0, 2, 1}, "to_channels"), {n, c.encoder.hidden, grid, grid}, "to_map");
    if (c.head == SetrHead::naive) {
      x = setr_conv_bn_relu(b, x, c.channels, 1, 0);
      x = b.conv2d(x, c.num_classes, {1, 1}, {.bias = true}, "conv_1");
      x = bilinear_resize(b, x, side, side, "upsample");
    } else {
      for (int i = 0; i < 4; ++i) {
        x = setr_conv_bn_relu(b, x, c.channels, 3, i);
        if (i < 3) x = bilinear_resize(b, x, b.shape(x)[2] * 2, b.shape(x)[3] * 2, "upsample_" + std::to_string(i));
      }
      x = b.conv2d(x, c.num_classes, {1, 1}, {.bias = true}, "conv_4");
      x = bilinear_resize(b, x, b.shape(x)[2] * 2, b.shape(x)[3] * 2, "upsample_3");
    }
  }
  return finish(std::move(b), {x}, o);
}

/// SETR-Naive-Base: ViT-B/16 encoder, naive head.
inline Graph<> setr_naive_base(ModelOptions const& o = {}) { return setr({.encoder = {}, .head = SetrHead::naive}, o, "setr_naive_base"); }
/// SETR-Naive: ViT-L/16 encoder, naive head.
inline Graph<> setr_naive(ModelOptions const& o = {}) { return setr({.head = SetrHead::naive}, o, "setr_naive"); }
/// SETR-PUP: ViT-L/16 encoder, progressive upsampling head.
inline Graph<> setr_pup(ModelOptions const& o = {}) { return setr({.head = SetrHead::pup}, o, "setr_pup"); }

}  // namespace autograph::models
