#pragma once
// ViT-B/16, ViT-L/16 and ViT-H/14 as torchvision builds them (torchvision.models.vit_b_16; the
// other two differ only in VitConfig). ViT-B/16:
//   patches  = conv 16x16/16 (768, bias) -> reshape [N, 768, 196] -> transpose [N, 196, 768]
//   tokens   = concat(class token, patches) along the sequence -> [N, 197, 768]
//   x        = tokens + position embedding [1, 197, 768]
//   12 pre-LN encoder blocks:  x = x + MHA(LN(x));  x = x + MLP(LN(x))
//       MHA: one packed in-projection [768, 2304] (+bias) split into q, k, v, 12 heads of 64,
//            softmax(q k^T / 8) v, out-projection [768, 768] (+bias)
//       MLP: linear 768 -> 3072, GELU, linear 3072 -> 768
//   LN, then the head (768 -> 1000) on the class token.
// LayerNorm eps 1e-6 (torchvision's). The class token is tiled to the batch with a Concat of
// `batch` copies (expand() in PyTorch), so it adds no parameters.
//
// Published sizes (torchvision): vit_b_16 86,567,656 parameters, 17.56 GMACs at 224 (attention
// matmuls included); vit_l_16 304,326,632 parameters, 61.55 GMACs; vit_h_14 632,045,800 parameters,
// 167.29 GMACs. The AutoGTCO paper's Table I lists 86.00 M, 307.00 M and 632.00 M: the ViT paper's
// rounded figures (Dosovitskiy et al. 2021, Table 1: 86 M, 307 M, 632 M), not torchvision's count.
#include <string>

#include "autograph/models/transformer.hpp"

namespace autograph::models {

struct VitConfig {
  std::int64_t patch = 16;
  std::int64_t layers = 12;
  std::int64_t hidden = 768;
  std::int64_t heads = 12;
  std::int64_t mlp = 3072;
  std::int64_t num_classes = 1000;
};

namespace detail {

/// The image side to build a ViT-style model with: the option or `fallback`, a multiple of the
/// patch. Throws when the side or the configuration is invalid.
inline std::int64_t vit_side(VitConfig const& c, ModelOptions const& o, std::string const& model, std::int64_t fallback) {
  if (c.patch < 1 || c.layers < 1 || c.hidden < 1 || c.heads < 1 || c.mlp < 1)
    throw Error(model + ": patch, layers, hidden, heads and mlp must be >= 1");
  std::int64_t side = resolution_of(o, model, fallback, c.patch);
  if (side % c.patch != 0)
    throw Error(model + ": resolution " + std::to_string(side) + " is not a multiple of the patch size " + std::to_string(c.patch));
  if (c.hidden % c.heads != 0)
    throw Error(model + ": hidden size " + std::to_string(c.hidden) + " does not split into " + std::to_string(c.heads) + " heads");
  return side;
}

/// ViT's patch embedding, class token, position embedding and pre-LN encoder blocks on
/// `image` [n, 3, side, side]; returns the residual stream [n, 1 + (side/patch)^2, hidden]
/// after the last block, before any final LayerNorm.
inline Value vit_encoder(GraphBuilder<>& b, Value image, VitConfig const& c) {
  std::int64_t n = b.shape(image)[0], grid = b.shape(image)[2] / c.patch, tokens = grid * grid + 1;
  Value x = b.conv2d(image, c.hidden, {c.patch, c.patch}, {.stride = {c.patch, c.patch}, .pad = pad2(0, 0), .bias = true}, "conv_proj");
  x = b.transpose(b.reshape(x, {n, c.hidden, grid * grid}, "patches_reshape"), {0, 2, 1}, "patches_transpose");
  Value cls = b.weight("class_token", Shape{1, 1, c.hidden}, WeightInit::uniform);
  if (n > 1) cls = b.concat(std::vector<Value>(static_cast<std::size_t>(n), cls), 0, "class_token_expand");
  x = b.concat({cls, x}, 1, "tokens");
  x = b.add(x, b.weight("encoder.pos_embedding", Shape{1, tokens, c.hidden}, WeightInit::uniform), "pos_add");
  for (std::int64_t l = 0; l < c.layers; ++l) {
    auto s = b.scope("encoder.layers.encoder_layer_" + std::to_string(l));
    Value y = b.layer_norm(x, 1e-6f, "ln_1");
    {
      auto a = b.scope("self_attention");
      auto qkv = b.split(b.linear(y, 3 * c.hidden, true, Activation::none, "in_proj"), -1, {c.hidden, c.hidden, c.hidden}, "qkv_split");
      y = b.linear(attention_core(b, qkv[0], qkv[1], qkv[2], c.heads), c.hidden, true, Activation::none, "out_proj");
    }
    x = b.add(x, y, "residual_1");
    y = b.layer_norm(x, 1e-6f, "ln_2");
    y = b.linear(b.gelu(b.linear(y, c.mlp, true, Activation::none, "mlp.0"), "mlp.1"), c.hidden, true, Activation::none, "mlp.3");
    x = b.add(x, y, "residual_2");
  }
  return x;
}

}  // namespace detail

/// ViT with the given configuration; input [batch, 3, side, side] (side a multiple of the patch,
/// 224 by default).
inline Graph<> vit(VitConfig const& c, ModelOptions const& o = {}, std::string const& model = "vit") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = vit_side(c, o, model, 224);
  if (c.num_classes < 1) throw Error(model + ": num_classes must be >= 1, got " + std::to_string(c.num_classes));
  auto b = builder_for(o);
  Value x = vit_encoder(b, b.input("image", {n, 3, side, side}, o.dtype), c);
  x = b.layer_norm(x, 1e-6f, "encoder.ln");
  x = b.reshape(b.add(Slice{{1}, {0}, {1}, {}}, {x}, "class_token_slice"), {n, c.hidden}, "class_token_flatten");
  Value logits = b.linear(x, c.num_classes, true, Activation::none, "heads.head");
  return finish(std::move(b), {logits}, o);
}

/// ViT-B/16, input [batch, 3, 224, 224] by default; output [batch, 1000] logits.
inline Graph<> vit_b_16(ModelOptions const& o = {}) { return vit(VitConfig{}, o, "vit_b_16"); }

/// ViT-L/16 (torchvision.models.vit_l_16): 24 blocks, 1024 wide, 16 heads, MLP 4096.
inline Graph<> vit_l_16(ModelOptions const& o = {}) {
  return vit({.patch = 16, .layers = 24, .hidden = 1024, .heads = 16, .mlp = 4096}, o, "vit_l_16");
}

/// ViT-H/14 (torchvision.models.vit_h_14): 32 blocks, 1280 wide, 16 heads, MLP 5120, 14x14
/// patches (257 tokens at 224).
inline Graph<> vit_h_14(ModelOptions const& o = {}) {
  return vit({.patch = 14, .layers = 32, .hidden = 1280, .heads = 16, .mlp = 5120}, o, "vit_h_14");
}

}  // namespace autograph::models
