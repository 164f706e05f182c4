#pragma once
// Scaled dot-product attention as one operator (AutoGTCO §IV-D, Fig. 6: the batched matmul,
// scale, mask and softmax of multi-head attention fused into one kernel with the second
// batched matmul):
//
//   out = softmax(scale * (q @ kT) [+ mask], axis -1) @ v
//
// q [..., Tq, D], kT [..., D, Tk] (the keys already transposed, as models/transformer.hpp's
// attention_core builds them), v [..., Tk, Dv], an optional additive mask that broadcasts to
// the scores [..., Tq, Tk] without enlarging them. Batch dimensions broadcast as MatMul's do.
// Output [..., Tq, Dv]. The scores are never a tensor of the graph: a fused kernel keeps them
// on chip (FlashAttention, Dao et al. 2022), which is why bytes() counts only q, kT, v, the
// mask and the output.
#include <tuple>

#include "autograph/ops/operator.hpp"

namespace autograph {

struct FusedAttention {
  static constexpr std::string_view name = "FusedAttention";
  static constexpr Arity arity{3, 4};
  float scale = 1.f;

  auto params() const { return std::tuple{scale}; }
  bool operator==(FusedAttention const&) const = default;

  /// The scores' shape [..., Tq, Tk], the mask's and softmax's domain.
  /// @throws ShapeError naming the input and its shape when q, kT and v do not chain.
  Shape scores_shape(std::span<TensorDesc const> in) const {
    static constexpr char const* names[] = {"q", "kT", "v", "mask"};
    for (std::size_t i = 0; i < 3; ++i)
      if (in[i].shape.rank() < 2)
        throw ShapeError("FusedAttention: input " + std::to_string(i) + " (" + names[i] + ") must be at least 2-D, got " + in[i].shape.to_string());
    Shape const &q = in[0].shape, &k = in[1].shape, &v = in[2].shape;
    std::string all = " (q=" + q.to_string() + " kT=" + k.to_string() + " v=" + v.to_string() + ")";
    if (q[q.rank() - 1] != k[k.rank() - 2])
      throw ShapeError("FusedAttention: input 1 (kT) must be [..., D, Tk] with q's D = " + std::to_string(q[q.rank() - 1]) + all);
    if (k[k.rank() - 1] != v[v.rank() - 2])
      throw ShapeError("FusedAttention: input 2 (v) must be [..., Tk, Dv] with kT's Tk = " + std::to_string(k[k.rank() - 1]) + all);
    Shape batch;
    try {
      batch = broadcast(Shape(q.dims().first(q.rank() - 2)), Shape(k.dims().first(k.rank() - 2)));
    } catch (ShapeError const& e) {
      throw ShapeError("FusedAttention: the batch dimensions of q and kT do not broadcast" + all + ": " + e.what());
    }
    std::vector<std::int64_t> s(batch.begin(), batch.end());
    s.push_back(q[q.rank() - 2]);
    s.push_back(k[k.rank() - 1]);
    return Shape(s);
  }

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_same_dtype<FusedAttention>(in);
    Shape scores = scores_shape(in);
    if (in.size() == 4) {
      bool fits = in[3].shape.rank() <= scores.rank();
      try {
        fits = fits && broadcast(in[3].shape, scores) == scores;
      } catch (ShapeError const&) {
        fits = false;
      }
      if (!fits)
        throw ShapeError("FusedAttention: input 3 (mask) " + in[3].shape.to_string() + " must broadcast to the scores " + scores.to_string() +
                         " without enlarging them");
    }
    Shape const& v = in[2].shape;
    Shape batch;
    try {
      batch = broadcast(Shape(scores.dims().first(scores.rank() - 2)), Shape(v.dims().first(v.rank() - 2)));
    } catch (ShapeError const& e) {
      throw ShapeError("FusedAttention: the batch dimensions of the scores " + scores.to_string() + " and v=" + v.to_string() +
                       " do not broadcast: " + e.what());
    }
    std::vector<std::int64_t> out(batch.begin(), batch.end());
    out.push_back(scores[scores.rank() - 2]);
    out.push_back(v[v.rank() - 1]);
    return {TensorDesc{Shape(out), in[0].dtype}};
  }

  /// The two products: scores (Tq x Tk x D per score matrix), then probabilities times v
  /// (Tq x Dv x Tk per output matrix).
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    Shape const& q = in[0].shape;
    double d = static_cast<double>(q[q.rank() - 1]);
    double tk = static_cast<double>(in[1].shape[in[1].shape.rank() - 1]);
    return static_cast<double>(scores_shape(in).numel()) * d + static_cast<double>(out[0].numel()) * tk;
  }
  /// The products, and per score the scale, the mask's add and softmax's 5 (max, subtract,
  /// exp, sum, divide: what Softmax::flops counts).
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    double per_score = 1.0 + (in.size() == 4 ? 1.0 : 0.0) + 5.0;
    return 2 * macs(in, out) + per_score * static_cast<double>(scores_shape(in).numel());
  }
  std::string attributes() const { return "scale " + std::to_string(scale); }
};

}  // namespace autograph
