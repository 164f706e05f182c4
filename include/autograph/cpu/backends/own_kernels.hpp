#pragma once
// Our own kernels as a backend:
// - an elementwise chain (unary and binary elementwise ops of one shape, Scale, Identity, and
//   inference BatchNorms with constant parameters: a per-channel affine) in one pass: blocks of the tensor small enough to stay in L1 go through every op of the chain
//   before the next block is read, so the chain reads its inputs and writes its output once,
//   where one kernel per op reads and writes every intermediate tensor;
// - a direct depthwise convolution (groups = input channels = output channels), with its bias
//   and activation, for the small kernels where a GEMM formulation has little to reuse.
// Both compute with the ops' own scalar functions (ops/unary.hpp, ops/elementwise.hpp), the ones
// the reference kernels use.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include "autograph/cpu/backends/cpu_backend.hpp"
#include "autograph/graph/weight_only.hpp"
#include "autograph/runtime/cpu/conv2d.hpp"

namespace autograph::cpu::backends {

namespace detail {

using UnaryLoop = void (*)(float const*, float*, std::int64_t, float, float);
using BinaryLoop = void (*)(float const*, float const*, float*, std::int64_t);

// The ops' own scalar functions (apply() in ops/unary.hpp, ops/elementwise.hpp), with the
// cheap ones written out: apply() is one switch over every kind, too large for GCC to inline
// into the loop, and a call per element keeps the loop from vectorising. The selects are
// written as std::max/std::min with the operands in the order that gives apply()'s result for
// NaN too ((0 < x) ? x : 0 is x > 0 ? x : 0): GCC compiled `x > 0.f ? x : 0.f` to a branch,
// which random signs mispredict half the time (a Relu of 200,704 floats took 0.8 ms, oneDNN's
// 0.02 ms); the loops are `omp simd` (GCC's -O2 vectorises only the cheapest loops).
template <UnaryKind K>
inline float unary_value(float x, float alpha, float beta) {
  if constexpr (K == UnaryKind::relu) return std::max(0.f, x);
  else if constexpr (K == UnaryKind::neg) return -x;
  else if constexpr (K == UnaryKind::leaky_relu) return x >= 0.f ? x : alpha * x;
  else if constexpr (K == UnaryKind::clip) return std::min(std::max(x, alpha), beta);
  else return apply(K, x, alpha, beta);
}
template <BinaryKind K>
inline float binary_value(float a, float b) {
  if constexpr (K == BinaryKind::add) return a + b;
  else if constexpr (K == BinaryKind::sub) return a - b;
  else if constexpr (K == BinaryKind::mul) return a * b;
  else if constexpr (K == BinaryKind::div) return a / b;
  else if constexpr (K == BinaryKind::max) return std::max(b, a);  // (b < a) ? a : b
  else if constexpr (K == BinaryKind::min) return std::min(b, a);  // (a < b) ? a : b
  else return apply(K, a, b);
}
template <UnaryKind K>
void unary_loop(float const* x, float* y, std::int64_t n, float alpha, float beta) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = unary_value<K>(x[i], alpha, beta);
}
template <BinaryKind K>
void binary_loop(float const* a, float const* b, float* y, std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) y[i] = binary_value<K>(a[i], b[i]);
}
template <std::size_t... I>
constexpr std::array<UnaryLoop, sizeof...(I)> unary_table(std::index_sequence<I...>) {
  return {&unary_loop<static_cast<UnaryKind>(I)>...};
}
template <std::size_t... I>
constexpr std::array<BinaryLoop, sizeof...(I)> binary_table(std::index_sequence<I...>) {
  return {&binary_loop<static_cast<BinaryKind>(I)>...};
}
inline constexpr auto unary_loops = unary_table(std::make_index_sequence<static_cast<std::size_t>(UnaryKind::hard_swish) + 1>{});
inline constexpr auto binary_loops = binary_table(std::make_index_sequence<static_cast<std::size_t>(BinaryKind::min) + 1>{});

/// One op of a chain: dst = f(a) or f(a, b), over slots (the chain's inputs first, then each op's output).
struct ChainStep {
  UnaryLoop unary = nullptr;
  BinaryLoop binary = nullptr;
  float alpha = 0, beta = 0;  // Unary parameters; Scale: y = x * alpha + beta
  bool scale = false;
  bool batch_norm = false;            // inference BatchNorm: y = (x - mean[c]) * scale[c] / sqrt(var[c] + alpha) + bias[c]
  std::array<std::uint32_t, 4> params{};  // BatchNorm: the slots of scale, bias, mean, var (constant inputs of the chain)
  std::uint32_t a = 0, b = 0, dst = 0;
};

template <class O>
inline constexpr bool is_unary = false;
template <UnaryKind K>
inline constexpr bool is_unary<Unary<K>> = true;
template <class O>
inline constexpr bool is_binary = false;
template <BinaryKind K>
inline constexpr bool is_binary<Binary<K>> = true;

/// Unary<K> / Binary<K> / Scale / BatchNorm / Identity as a step; false for anything else.
bool chain_step(AnyOp const& op, ChainStep& s);  // src/cpu/backends.cpp

/// An op a chain runs: elementwise of one shape (no broadcasting), or an inference BatchNorm
/// whose per-channel parameters are constants (folded into one scale once they are bound).
template <class Set>
bool chain_op(Graph<Set> const& g, NodeId n) {
  ChainStep s;
  if (!chain_step(g[n].op, s)) return false;
  auto const& node = g[n];
  auto const& out = node.outputs[0];
  if (s.batch_norm)
    return g.desc(node.inputs[0]) == out &&
           std::all_of(node.inputs.begin() + 1, node.inputs.end(), [&](Value v) { return is_weight_only(g, v.node); });
  return std::ranges::all_of(node.inputs, [&](Value v) { return g.desc(v) == out; });
}

inline bool depthwise(AnyOp const& op, std::span<TensorDesc const> in) {
  auto const* c = op.get_if<Conv2D>();
  return c && in.size() >= 2 && in[0].shape.rank() == 4 && c->groups > 1 && c->groups == in[0].shape[1] && in[1].shape[0] == c->groups &&
         in[1].shape[1] == 1;
}

}  // namespace detail

struct OwnKernels {
  static constexpr std::string_view name = "own";
  static constexpr std::int64_t block = 1024;  // floats per slot and block: 8 slots of 4 KiB stay in a 32 KiB L1

  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::PatternRule<Set>{.name = "elementwise-chain",
                                         .valid_op = detail::chain_op<Set>,
                                         .fusion = placement::connected_with_one_result<Set>,
                                         .max_size = 6});
    spec.add(placement::PatternRule<Set>{.name = "depthwise-conv",
                                         .valid_op =
                                             [](Graph<Set> const& g, NodeId n) {
                                               std::vector<TensorDesc> in;
                                               for (Value v : g[n].inputs) in.push_back(g.desc(v));
                                               return detail::depthwise(g[n].op, in);
                                             },
                                         .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                                         .max_size = 1});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;  // the rules' valid_op already checked the shapes
  }

  /// An elementwise chain computes on any layout: inputs in another layout than the output's
  /// are converted first (build_chain).
  bool any_layout(Graph<BuiltinOps> const& group) const;
  void build(Graph<BuiltinOps> const& group, Preparation& p) const;  // src/cpu/backends.cpp

 private:
  static void build_chain(Graph<BuiltinOps> const& group, std::vector<NodeId> const& ops, Preparation& p);
  static void build_depthwise(Conv2D const& op, Preparation& p);
};

}  // namespace autograph::cpu::backends
