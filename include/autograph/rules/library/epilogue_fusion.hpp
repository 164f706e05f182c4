#pragma once
// Elementwise chains into their producer (AutoGTCO §IV-B's fourth kind of fusable group),
// producing Conv2DEpilogue / MatMulEpilogue (ops/epilogue.hpp):
//   conv(x, w, ...) + r                  => Conv2DEpilogue(x, w, ..., r; [add])      fuse-conv-add
//   matmul(a, w, ...) + r                => MatMulEpilogue(a, w, ..., r; [add])      fuse-matmul-add
//   act(E(...))                          => E(...; chain + act)                      epilogue-{relu,gelu,sigmoid,tanh}
//   E(...) + r, E(...) * r               => E(..., r; chain + add / mul)             epilogue-add, epilogue-mul
//   scale(E(...))                        => E(...; chain + scale)                    epilogue-scale
// where r has the output's shape (a residual: a broadcast addend is a bias, which the producer
// takes itself: fuse-matmul-bias, fold-conv-bias). A chain grows one step per rewrite; DPOF
// sees a first step and the one it enables as one candidate (fusion_group.hpp) and further
// steps in later rounds. The matcher refuses a match whose intermediate is read elsewhere, so
// a fused chain never computes a value twice.
#include "autograph/rules/library/common.hpp"
#include "autograph/rules/library/conv_folding.hpp"
#include "autograph/rules/library/fusion.hpp"

namespace autograph::rules {

namespace detail {
/// The addend r of `root` = producer + r has the producer's output shape and is not that output.
template <class M, class Node, class Var>
Status residual_operand(M const& m, Node producer, Var r) {
  auto const& g = m.graph();
  Value produced{m.node(producer), 0};
  if (m[r] == produced) return to_status(false, "the operand is the producer's own output");
  return to_status(m.desc(r).shape == g[m.node(producer)].outputs[0].shape, "the operand does not have the output's shape (a broadcast)");
}
template <class E>
inline constexpr auto chain_has_room = [](E const& e) { return to_status(e.count < E::max_steps, "the epilogue's chain is full"); };
}  // namespace detail

inline namespace library {
using namespace dsl;

/// producer(x, ...) + r => Epilogue<producer>(x, ..., r; [add]).
template <FixedString Name, class Producer>
struct FuseProducerAdd : Rewrite<FuseProducerAdd<Name, Producer>, Name> {
  static constexpr auto producer = op<Producer>(x).extra_inputs();
  static constexpr auto from = add(producer, y).commutative().check([](auto const& m) { return detail::residual_operand(m, producer, y); });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = FuseProducerAdd::template bind<Set>(rw, match);
    std::vector<Value> in(m.inputs(producer).begin(), m.inputs(producer).end());
    auto op = Epilogue<Producer>::of(m[producer], in.size() == 3, {EpilogueStep::add()});
    in.push_back(m[y]);
    return {rw.add(op, in, m.name(producer))};
  }
};

/// act(E(...)) => E(...; chain + act).
template <FixedString Name, class Producer, class Act>
struct EpilogueActivation : Rewrite<EpilogueActivation<Name, Producer, Act>, Name> {
  static constexpr auto fused = op<Epilogue<Producer>>(x).extra_inputs().when(detail::chain_has_room<Epilogue<Producer>>);
  static constexpr auto from = op<Act>(fused);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = EpilogueActivation::template bind<Set>(rw, match);
    Epilogue<Producer> op = m[fused];
    op.append(EpilogueStep::activation(activation_of<Act>));
    std::vector<Value> in(m.inputs(fused).begin(), m.inputs(fused).end());
    return {rw.add(op, in, m.name(fused))};
  }
};

/// E(...) op r => E(..., r; chain + op) for Add and Mul with a residual-shaped r.
template <FixedString Name, class Producer, class Binary>
struct EpilogueBinary : Rewrite<EpilogueBinary<Name, Producer, Binary>, Name> {
  static constexpr auto fused = op<Epilogue<Producer>>(x).extra_inputs().when(detail::chain_has_room<Epilogue<Producer>>);
  static constexpr auto from = op<Binary>(fused, y).commutative().check([](auto const& m) { return detail::residual_operand(m, fused, y); });
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = EpilogueBinary::template bind<Set>(rw, match);
    Epilogue<Producer> op = m[fused];
    op.append(std::is_same_v<Binary, Add> ? EpilogueStep::add() : EpilogueStep::mul());
    std::vector<Value> in(m.inputs(fused).begin(), m.inputs(fused).end());
    in.push_back(m[y]);
    return {rw.add(op, in, m.name(fused))};
  }
};

/// scale(E(...)) => E(...; chain + scale * y + shift).
template <FixedString Name, class Producer>
struct EpilogueScale : Rewrite<EpilogueScale<Name, Producer>, Name> {
  static constexpr auto fused = op<Epilogue<Producer>>(x).extra_inputs().when(detail::chain_has_room<Epilogue<Producer>>);
  static constexpr auto from = scale(fused);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = EpilogueScale::template bind<Set>(rw, match);
    Epilogue<Producer> op = m[fused];
    Scale const& s = m[from];
    op.append(EpilogueStep::affine(s.scale, s.shift));
    std::vector<Value> in(m.inputs(fused).begin(), m.inputs(fused).end());
    return {rw.add(op, in, m.name(fused))};
  }
};

using FuseConvAdd = FuseProducerAdd<"fuse-conv-add", Conv2D>;
using FuseMatMulAdd = FuseProducerAdd<"fuse-matmul-add", MatMul>;
using ConvEpilogueRelu = EpilogueActivation<"conv-epilogue-relu", Conv2D, Relu>;
using ConvEpilogueAdd = EpilogueBinary<"conv-epilogue-add", Conv2D, Add>;
using ConvEpilogueMul = EpilogueBinary<"conv-epilogue-mul", Conv2D, Mul>;
using ConvEpilogueScale = EpilogueScale<"conv-epilogue-scale", Conv2D>;
using MatMulEpilogueRelu = EpilogueActivation<"matmul-epilogue-relu", MatMul, Relu>;
using MatMulEpilogueGelu = EpilogueActivation<"matmul-epilogue-gelu", MatMul, Gelu>;
using MatMulEpilogueAdd = EpilogueBinary<"matmul-epilogue-add", MatMul, Add>;
using MatMulEpilogueScale = EpilogueScale<"matmul-epilogue-scale", MatMul>;

}  // namespace library

/// The chains, and the foldings that bring a chain next to its producer: a frozen BatchNorm
/// between ResNet's last convolution of a block and its residual add (DETR's backbone), an
/// activation straight after a convolution.
using EpilogueFusion = Rules<FoldConvBatchNorm, FuseConvRelu, FuseConvAdd, FuseMatMulAdd, ConvEpilogueRelu, ConvEpilogueAdd, ConvEpilogueMul,
                             ConvEpilogueScale, MatMulEpilogueRelu, MatMulEpilogueGelu, MatMulEpilogueAdd, MatMulEpilogueScale>;

// Random examples (numerical verification): a convolution or linear layer (bias or not, an
// activation of its own now and then) with a residual of its output's shape; the chain rules'
// examples start from the fused op their source matches, its chain continued by their step.
namespace detail {
/// The producer node: Conv2D or MatMul, with a bias or not.
template <class Set, class Producer>
Value epilogue_producer(GraphBuilder<Set>& b, std::mt19937_64& rng, bool own_act) {
  Activation act = own_act && coin(rng) ? Activation::relu : Activation::none;
  if constexpr (std::is_same_v<Producer, Conv2D>) {
    auto x = b.input("x", {pick(rng, {1, 2}), pick(rng, {2, 3}), pick(rng, {5, 6}), pick(rng, {4, 7})});
    std::int64_t k = pick(rng, {1, 3});
    return b.conv2d(x, pick(rng, {2, 4}), {k, k}, {.stride = {pick(rng, {1, 2}), 1}, .act = act, .bias = coin(rng)});
  } else {
    auto x = b.input("x", {pick(rng, {2, 3}), pick(rng, {3, 4}), pick(rng, {5, 8})});
    std::int64_t k = b.shape(x)[2], n = pick(rng, {3, 6});
    std::vector<Value> in{x, b.weight("w", Shape{k, n})};
    if (coin(rng)) in.push_back(b.weight("bias", Shape{n}, WeightInit::uniform));
    return b.add(MatMul{act}, in);
  }
}
/// An input of v's shape.
template <class Set>
Value residual_of(GraphBuilder<Set>& b, Value v) {
  return b.input("r", b.shape(v));
}
/// Epilogue<Producer>(...; [add]) over a fresh producer and residual.
template <class Set, class Producer>
Value fused_start(GraphBuilder<Set>& b, std::mt19937_64& rng) {
  Value y = epilogue_producer<Set, Producer>(b, rng, true);
  auto const& node = b.graph()[y.node];
  Producer p = *node.op.template get_if<Producer>();
  std::vector<Value> in(node.inputs.begin(), node.inputs.end());
  auto op = Epilogue<Producer>::of(p, in.size() == 3, {EpilogueStep::add()});
  in.push_back(residual_of(b, y));
  return b.add(op, in);
}
}  // namespace detail

template <FixedString Name, class Producer>
struct RuleExample<FuseProducerAdd<Name, Producer>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value y = detail::epilogue_producer<Set, Producer>(b, rng, true);
    Value r = detail::residual_of(b, y);
    return std::move(b).build({detail::coin(rng) ? b.add(y, r) : b.add(r, y)});
  }
};

template <FixedString Name, class Producer, class Act>
struct RuleExample<EpilogueActivation<Name, Producer, Act>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    return std::move(b).build({b.add(Act{}, {detail::fused_start<Set, Producer>(b, rng)})});
  }
};

template <FixedString Name, class Producer, class Binary>
struct RuleExample<EpilogueBinary<Name, Producer, Binary>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value e = detail::fused_start<Set, Producer>(b, rng);
    Value r = b.input("r2", b.shape(e));
    return std::move(b).build({detail::coin(rng) ? b.add(Binary{}, {e, r}) : b.add(Binary{}, {r, e})});
  }
};

template <FixedString Name, class Producer>
struct RuleExample<EpilogueScale<Name, Producer>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Value e = detail::fused_start<Set, Producer>(b, rng);
    return std::move(b).build({b.scale(e, detail::coin(rng) ? -0.75f : 1.5f, detail::coin(rng) ? 0.5f : 0.f)});
  }
};

}  // namespace autograph::rules
