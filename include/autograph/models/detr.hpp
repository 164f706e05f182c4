#pragma once
// DETR with a ResNet-50 backbone as facebookresearch/detr builds it for inference (models/detr.py,
// backbone.py, transformer.py, position_encoding.py), the AutoGTCO paper's DETR-ResNet50-E3/E6/E12
// (Table I: 3, 6 or 12 encoder layers, 6 decoder layers, width 256, FFN 2048, 8 heads):
//
//   f       = ResNet-50 stem + layer1..layer4 with frozen BatchNorm     [N, 2048, H/32, W/32]
//   src     = conv1x1(f, 256) (+bias), flattened to tokens              [N, HW, 256]
//   pos     = the sine position encoding (normalize=True, scale 2 pi, temperature 10000, 128
//             features per axis: y then x, sin/cos interleaved), a constant computed here: with
//             no padding mask it depends on H and W only
//   encoder, post-norm, ReLU FFN:  q = k = src + pos, v = src
//       src = LN(src + MHA(q, k, v));  src = LN(src + W2 relu(W1 src))
//   decoder, post-norm:  tgt = 0, query_pos = the 100 learned object queries
//       tgt = LN(tgt + MHA(tgt + query_pos, tgt + query_pos, tgt))
//       tgt = LN(tgt + MHA(tgt + query_pos, memory + pos, memory))
//       tgt = LN(tgt + W2 relu(W1 tgt))
//   hs      = LN(tgt)                                                   (the decoder's norm)
//   logits  = linear(hs, 92)            91 COCO classes + "no object"  [N, 100, 92]
//   boxes   = sigmoid(MLP(hs)), 3 layers 256-256-4 with ReLU            [N, 100, 4]
//
// Differences from the PyTorch module that change no value or count: tokens are batch-first
// [N, HW, 256] where PyTorch is sequence-first [HW, N, 256] (the same data at batch 1); q, k and v
// are three linears (PyTorch's packed in_proj split the same way when the query is not the
// value); the heads read the last decoder layer only (the other layers' outputs feed the
// training loss's auxiliary terms). Dropout is identity at inference. Eps: 1e-5 everywhere.
//
// Parameters. PyTorch's model.parameters() of detr_resnet50 counts 41,524,768: the backbone's
// convolutions 23,454,912 (its FrozenBatchNorm2d holds buffers only), the transformer 17,363,456,
// input_proj 524,544, query_embed 25,600, class_embed 23,644, bbox_embed 132,612. DETR's main.py
// prints sum(p.numel() for p in model.parameters() if p.requires_grad) = 41,302,368: backbone.py
// freezes every backbone parameter outside layer2..layer4, so the stem conv (9,408) and layer1
// (212,992) are not counted. The AutoGTCO paper's 37.40 M / 41.30 M / 49.20 M are that count
// (37,357,152 / 41,302,368 / 49,192,800) rounded to 0.1 M; detr_test.cpp derives them.
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "autograph/models/resnet.hpp"
#include "autograph/models/transformer.hpp"

namespace autograph::models {

struct DetrConfig {
  std::int64_t encoder_layers = 6;
  std::int64_t decoder_layers = 6;
  std::int64_t hidden = 256;
  std::int64_t heads = 8;
  std::int64_t ffn = 2048;
  std::int64_t queries = 100;
  std::int64_t num_classes = 91;  // COCO's class ids; the class head adds one "no object" class
};

namespace detail {

/// DETR's PositionEmbeddingSine(hidden / 2, normalize=True) for an unpadded h x w feature map, as
/// tokens: [1, h*w, hidden], token t = y * w + x; channels [0, hidden/2) encode y, the rest x.
inline Tensor detr_sine_position(std::int64_t h, std::int64_t w, std::int64_t hidden) {
  std::int64_t feats = hidden / 2;
  std::vector<float> data(static_cast<std::size_t>(h * w * hidden));
  auto embed = [](std::int64_t i, std::int64_t n) {  // the cumulative sum of the mask, normalized (eps 1e-6)
    return static_cast<double>(i + 1) / (static_cast<double>(n) + 1e-6) * 2 * std::numbers::pi;
  };
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x)
      for (std::int64_t c = 0; c < hidden; ++c) {
        std::int64_t k = c % feats;  // the channel within its axis' half
        double dim_t = std::pow(10000.0, static_cast<double>(2 * (k / 2)) / static_cast<double>(feats));
        double v = (c < feats ? embed(y, h) : embed(x, w)) / dim_t;
        data[static_cast<std::size_t>((y * w + x) * hidden + c)] = static_cast<float>(k % 2 == 0 ? std::sin(v) : std::cos(v));
      }
  return Tensor(Shape{1, h * w, hidden}, std::move(data));
}

/// nn.MultiheadAttention: separate q, k, v projections (+bias), the heads, the out projection.
inline Value detr_attention(GraphBuilder<>& b, Value q, Value k, Value v, DetrConfig const& c, std::string const& name) {
  auto s = b.scope(name);
  q = b.linear(q, c.hidden, true, Activation::none, "q_proj");
  k = b.linear(k, c.hidden, true, Activation::none, "k_proj");
  v = b.linear(v, c.hidden, true, Activation::none, "v_proj");
  return b.linear(attention_core(b, q, k, v, c.heads), c.hidden, true, Activation::none, "out_proj");
}

/// x = LN(x + W2 relu(W1 x)), the FFN sublayer of both layer kinds.
inline Value detr_ffn(GraphBuilder<>& b, Value x, DetrConfig const& c, std::string const& norm) {
  Value f = b.relu(b.linear(x, c.ffn, true, Activation::none, "linear1"), "relu");
  f = b.linear(f, c.hidden, true, Activation::none, "linear2");
  return b.layer_norm(b.add(x, f, "residual_ffn"), 1e-5f, norm);
}

/// `n` copies of x [1, ...] along the batch axis (PyTorch's repeat / expand), or x itself.
inline Value detr_tile(GraphBuilder<>& b, Value x, std::int64_t n, std::string const& name) {
  return n == 1 ? x : b.concat(std::vector<Value>(static_cast<std::size_t>(n), x), 0, name);
}

}  // namespace detail

/// DETR-ResNet50 with the given transformer; input [batch, 3, side, long] where side is the
/// resolution option (800 by default, DETR's evaluation size for the short side) and long =
/// round(side * 1333 / 800), DETR's maximum long side at 800 (so [800, 1333] by default). Two
/// outputs: class logits [batch, queries, num_classes + 1] and boxes [batch, queries, 4].
inline Graph<> detr(DetrConfig const& c, ModelOptions const& o = {}, std::string const& model = "detr") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = resolution_of(o, model, 800, 1);
  std::int64_t long_side = (side * 1333 + 400) / 800;
  if (c.encoder_layers < 0 || c.decoder_layers < 1 || c.queries < 1 || c.ffn < 1 || c.num_classes < 1)
    throw Error(model + ": needs encoder_layers >= 0 and decoder_layers, queries, ffn and num_classes >= 1");
  if (c.hidden < 2 || c.hidden % 2 != 0 || c.heads < 1 || c.hidden % c.heads != 0)
    throw Error(model + ": hidden size " + std::to_string(c.hidden) + " must be even and split into " + std::to_string(c.heads) + " heads");
  auto b = builder_for(o);
  Value x = b.input("image", {n, 3, side, long_side}, o.dtype);
  {
    auto s = b.scope("backbone");
    x = resnet_features(b, x, {.frozen_batch_norm = true});
  }
  std::int64_t h = b.shape(x)[2], w = b.shape(x)[3];
  x = b.conv2d(x, c.hidden, {1, 1}, {.bias = true}, "input_proj");
  Value memory = b.transpose(b.reshape(x, {n, c.hidden, h * w}, "flatten"), {0, 2, 1}, "tokens");
  Value pos = b.buffer("position_embedding", detr_sine_position(h, w, c.hidden));
  for (std::int64_t l = 0; l < c.encoder_layers; ++l) {
    auto s = b.scope("transformer.encoder.layers." + std::to_string(l));
    Value qk = b.add(memory, pos, "with_pos");
    Value a = detr_attention(b, qk, qk, memory, c, "self_attn");
    memory = b.layer_norm(b.add(memory, a, "residual_attn"), 1e-5f, "norm1");
    memory = detr_ffn(b, memory, c, "norm2");
  }
  Value query_pos = b.reshape(b.weight("query_embed.weight", Shape{c.queries, c.hidden}, WeightInit::uniform), {1, c.queries, c.hidden},
                              "query_embed.unsqueeze");
  query_pos = detr_tile(b, query_pos, n, "query_embed.repeat");
  // torch.zeros_like(query_embed): one image's zeros, tiled like the queries.
  Value tgt = detr_tile(b, b.buffer("transformer.tgt", Tensor(Shape{1, c.queries, c.hidden})), n, "transformer.tgt.repeat");
  for (std::int64_t l = 0; l < c.decoder_layers; ++l) {
    auto s = b.scope("transformer.decoder.layers." + std::to_string(l));
    Value qk = b.add(tgt, query_pos, "with_query_pos");
    tgt = b.layer_norm(b.add(tgt, detr_attention(b, qk, qk, tgt, c, "self_attn"), "residual_self"), 1e-5f, "norm1");
    Value q = b.add(tgt, query_pos, "query_with_pos");
    Value k = b.add(memory, pos, "memory_with_pos");
    tgt = b.layer_norm(b.add(tgt, detr_attention(b, q, k, memory, c, "multihead_attn"), "residual_cross"), 1e-5f, "norm2");
    tgt = detr_ffn(b, tgt, c, "norm3");
  }
  Value hs = b.layer_norm(tgt, 1e-5f, "transformer.decoder.norm");
  Value logits = b.linear(hs, c.num_classes + 1, true, Activation::none, "class_embed");
  Value box = b.relu(b.linear(hs, c.hidden, true, Activation::none, "bbox_embed.layers.0"), "bbox_embed.relu0");
  box = b.relu(b.linear(box, c.hidden, true, Activation::none, "bbox_embed.layers.1"), "bbox_embed.relu1");
  box = b.sigmoid(b.linear(box, 4, true, Activation::none, "bbox_embed.layers.2"), "pred_boxes");
  return finish(std::move(b), {logits, box}, o);
}

/// The AutoGTCO paper's DETR-ResNet50-E3, -E6 (facebookresearch/detr's detr_resnet50) and -E12.
inline Graph<> detr_r50_e3(ModelOptions const& o = {}) { return detr({.encoder_layers = 3}, o, "detr_r50_e3"); }
inline Graph<> detr_r50_e6(ModelOptions const& o = {}) { return detr({.encoder_layers = 6}, o, "detr_r50_e6"); }
inline Graph<> detr_r50_e12(ModelOptions const& o = {}) { return detr({.encoder_layers = 12}, o, "detr_r50_e12"); }

}  // namespace autograph::models
