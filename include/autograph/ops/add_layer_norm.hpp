#pragma once
// A residual add then layer normalisation as one operator (AutoGTCO §III: layer norm
// decomposes into elementwise ops, so the add before it fuses into the same pass):
//
//   s = a + b                       (NumPy broadcasting, as Add)
//   y = LayerNorm(s; gamma, beta)   over the axes [axis, rank), as LayerNorm
//
// Outputs: y, and s as a second output when `keep_sum`. A pre-LN transformer (ViT) needs the
// sum twice: it is the next block's residual as well as this norm's input (x = x + MHA(LN(x));
// x = x + MLP(LN(x))), so the fused op writes it once more instead of leaving a separate Add
// that reads a and b again. A post-LN one (BERT) reads only y: keep_sum = false writes nothing
// extra. Either way s is never read back, which is what the fusion saves.
#include <tuple>

#include "autograph/ops/layer_norm.hpp"

namespace autograph {

struct AddLayerNorm {
  static constexpr std::string_view name = "AddLayerNorm";
  static constexpr Arity arity{4, 4};
  std::int64_t axis = -1;
  float epsilon = 1e-5f;
  bool keep_sum = false;

  auto params() const { return std::tuple{axis, epsilon, keep_sum}; }
  bool operator==(AddLayerNorm const&) const = default;

  /// The LayerNorm of the sum.
  LayerNorm norm() const { return LayerNorm{axis, epsilon}; }

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    detail::check_same_dtype<AddLayerNorm>(in);
    TensorDesc sum{{}, in[0].dtype};
    try {
      sum.shape = broadcast(in[0].shape, in[1].shape);
    } catch (ShapeError const& e) {
      throw ShapeError("AddLayerNorm: input 0 (a) " + in[0].shape.to_string() + " and input 1 (b) " + in[1].shape.to_string() +
                       " do not broadcast: " + e.what());
    }
    if (sum.shape.rank() == 0) throw ShapeError("AddLayerNorm: the sum of a and b is a scalar; there is no axis to normalise");
    TensorDesc ln_in[] = {sum, in[2], in[3]};
    try {
      norm().infer(ln_in);
    } catch (ShapeError const& e) {
      throw ShapeError("AddLayerNorm (inputs 2 and 3: gamma, beta): " + std::string(e.what()));
    }
    if (keep_sum) return {sum, sum};
    return {sum};
  }
  /// One add per element, then LayerNorm's 8.
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 9.0 * static_cast<double>(out[0].numel()); }
  std::string attributes() const { return "axis " + std::to_string(axis) + (keep_sum ? " +sum" : ""); }
};

}  // namespace autograph
