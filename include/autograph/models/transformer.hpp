#pragma once
// Pieces the Transformer models (BERT, ViT) share: multi-head self-attention written out in
// the ops a framework exports it as, so the optimizer sees every matmul, reshape, transpose
// and softmax.
#include <cmath>
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models::detail {

/// [B, T, H*D] -> [B, H, T, D] (or [B, H, D, T] when `keys`, ready to be the right operand of
/// the score matmul).
inline Value split_heads(GraphBuilder<>& b, Value x, std::int64_t heads, bool keys, std::string const& name) {
  auto const& s = b.shape(x);
  Value r = b.reshape(x, {s[0], s[1], heads, s[2] / heads}, name + "_reshape");
  return b.transpose(r, keys ? std::vector<std::int64_t>{0, 2, 3, 1} : std::vector<std::int64_t>{0, 2, 1, 3}, name + "_transpose");
}

/// softmax(q k^T / sqrt(d)) v for q, k, v of shape [B, T, heads*d]; returns [B, T, heads*d].
inline Value attention_core(GraphBuilder<>& b, Value q, Value k, Value v, std::int64_t heads) {
  auto const& s = b.shape(q);
  std::int64_t d = s[2] / heads;
  Value qh = split_heads(b, q, heads, false, "q");
  Value kt = split_heads(b, k, heads, true, "k");
  Value vh = split_heads(b, v, heads, false, "v");
  Value scores = b.scale(b.matmul(qh, kt, Activation::none, "scores"), 1.f / std::sqrt(static_cast<float>(d)), 0.f, "scale");
  Value p = b.softmax(scores, -1, "softmax");
  Value ctx = b.transpose(b.matmul(p, vh, Activation::none, "context"), {0, 2, 1, 3}, "context_transpose");
  return b.reshape(ctx, {s[0], s[1], s[2]}, "context_reshape");
}

}  // namespace autograph::models::detail
