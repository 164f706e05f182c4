#pragma once
// Activation fusion: act(op(x, w, ...)) => op(x, w, ...; act) for ops with an `act` field
// (Conv2D, MatMul) — one kernel instead of two (cuDNN/cuBLAS epilogues). The producer's
// extra inputs (a bias) stay: act(a w + bias) is what the fused op computes.
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

template <class Act>
inline constexpr Activation activation_of = Activation::none;
template <>
inline constexpr Activation activation_of<Relu> = Activation::relu;
template <>
inline constexpr Activation activation_of<Sigmoid> = Activation::sigmoid;
template <>
inline constexpr Activation activation_of<Tanh> = Activation::tanh;
template <>
inline constexpr Activation activation_of<Gelu> = Activation::gelu;

inline namespace library {
using namespace dsl;

template <FixedString Name, class Producer, class Act>
  requires(activation_of<Act> != Activation::none)
struct FuseActivation : Rewrite<FuseActivation<Name, Producer, Act>, Name> {
  static constexpr auto producer = op<Producer>(x).extra_inputs().when([](Producer const& o) {
    return to_status(o.act == Activation::none, "the op already applies an activation");
  });
  static constexpr auto from = op<Act>(producer);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = FuseActivation::template bind<Set>(rw, match);
    Producer fused = m[producer];
    fused.act = activation_of<Act>;
    return {rw.add(fused, m.inputs(producer), m.name(producer))};
  }
};

using FuseConvRelu = FuseActivation<"fuse-conv-relu", Conv2D, Relu>;
using FuseConvSigmoid = FuseActivation<"fuse-conv-sigmoid", Conv2D, Sigmoid>;
using FuseConvTanh = FuseActivation<"fuse-conv-tanh", Conv2D, Tanh>;
using FuseMatMulRelu = FuseActivation<"fuse-matmul-relu", MatMul, Relu>;
using FuseMatMulSigmoid = FuseActivation<"fuse-matmul-sigmoid", MatMul, Sigmoid>;
using FuseMatMulTanh = FuseActivation<"fuse-matmul-tanh", MatMul, Tanh>;
using FuseMatMulGelu = FuseActivation<"fuse-matmul-gelu", MatMul, Gelu>;  // rules::TransformerFusion

}  // namespace library

template <FixedString Name, class Producer, class Act>
struct RuleExample<FuseActivation<Name, Producer, Act>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y;
    if constexpr (std::is_same_v<Producer, Conv2D>) {
      auto x = b.input("x", {detail::pick(rng, {1, 2}), detail::pick(rng, {2, 3, 5}), detail::pick(rng, {5, 6}), detail::pick(rng, {4, 7})});
      std::int64_t k = detail::pick(rng, {1, 3});
      y = b.conv2d(x, detail::pick(rng, {2, 4}), {k, k}, {.stride = {detail::pick(rng, {1, 2}), 1}, .bias = detail::coin(rng)});
    } else {
      auto x = b.input("x", {detail::pick(rng, {2, 3}), detail::pick(rng, {3, 4}), detail::pick(rng, {5, 8})});
      y = b.linear(x, detail::pick(rng, {3, 6}), false);
    }
    return std::move(b).build({b.add(Act{}, {y})});
  }
};

}  // namespace autograph::rules
