#pragma once
// ViT-B/16 as torchvision builds it (torchvision.models.vit_b_16):
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
// Published sizes (torchvision): 86,567,656 parameters, 17.56 GMACs at 224 (attention matmuls
// included).
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

/// ViT with the given configuration; input [batch, 3, side, side] (side a multiple of the patch).
inline Graph<> vit(VitConfig const& c, ModelOptions const& o = {}, std::string const& model = "vit") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = resolution_of(o, model, 224, c.patch);
  if (side % c.patch != 0)
    throw Error(model + ": resolution " + std::to_string(side) + " is not a multiple of the patch size " + std::to_string(c.patch));
  if (c.hidden % c.heads != 0)
    throw Error(model + ": hidden size " + std::to_string(c.hidden) + " does not split into " + std::to_string(c.heads) + " heads");
  std::int64_t grid = side / c.patch, tokens = grid * grid + 1;
  auto b = builder_for(o);
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  x = b.conv2d(x, c.hidden, {c.patch, c.patch}, {.stride = {c.patch, c.patch}, .pad = pad2(0, 0), .bias = true}, "conv_proj");
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
  x = b.layer_norm(x, 1e-6f, "encoder.ln");
  x = b.reshape(b.add(Slice{{1}, {0}, {1}, {}}, {x}, "class_token_slice"), {n, c.hidden}, "class_token_flatten");
  Value logits = b.linear(x, c.num_classes, true, Activation::none, "heads.head");
  return finish(std::move(b), {logits}, o);
}

/// ViT-B/16, input [batch, 3, 224, 224] by default; output [batch, 1000] logits.
inline Graph<> vit_b_16(ModelOptions const& o = {}) { return vit(VitConfig{}, o, "vit_b_16"); }

}  // namespace autograph::models
