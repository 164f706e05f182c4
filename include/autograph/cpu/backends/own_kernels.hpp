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

/// Unary<K> / Binary<K> / Scale / Identity as a step; false for anything else.
inline bool chain_step(AnyOp const& op, ChainStep& s) {
  return visit_op<BuiltinOps>(op, [&]<class O>(O const& o) {
    if constexpr (is_unary<O>) {
      s.unary = unary_loops[static_cast<std::size_t>(O::kind)];
      s.alpha = o.alpha;
      s.beta = o.beta;
      return true;
    } else if constexpr (is_binary<O>) {
      s.binary = binary_loops[static_cast<std::size_t>(O::kind)];
      return true;
    } else if constexpr (std::is_same_v<O, Scale>) {
      s.scale = true;
      s.alpha = o.scale;
      s.beta = o.shift;
      return true;
    } else if constexpr (std::is_same_v<O, BatchNorm>) {
      s.batch_norm = true;
      s.alpha = o.epsilon;
      return true;
    } else if constexpr (std::is_same_v<O, Identity>) {
      s.unary = unary_loops[static_cast<std::size_t>(UnaryKind::clip)];  // clip to (-inf, inf): a copy
      s.alpha = -std::numeric_limits<float>::infinity();
      s.beta = std::numeric_limits<float>::infinity();
      return true;
    } else {
      return false;
    }
  });
}

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
                                         .fusion =
                                             [](Graph<Set> const& g, std::span<NodeId const> group) {
                                               for (NodeId n : group)
                                                 if (group.size() > 1 && std::ranges::none_of(group, [&](NodeId m) {
                                                       return placement::reads(g, n, m) || placement::reads(g, m, n);
                                                     }))
                                                   return false;
                                               return placement::escaping_nodes(g, group) == 1;
                                             },
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
  rules::Status can_run(Graph<Set> const&, placement::Group const&) const {
    return rules::ok;  // the rules' valid_op already checked the shapes
  }

  /// An elementwise chain computes on any layout: inputs in another layout than the output's
  /// are converted first (build_chain).
  bool any_layout(Graph<BuiltinOps> const& group) const {
    auto ops = group_ops(group);
    return !(ops.size() == 1 && group[ops[0]].is<Conv2D>());
  }

  void build(Graph<BuiltinOps> const& group, Preparation& p) const {
    auto ops = group_ops(group);
    if (ops.size() == 1 && group[ops[0]].is<Conv2D>()) return build_depthwise(*group[ops[0]].get_if<Conv2D>(), p);
    build_chain(group, ops, p);
  }

 private:
  static void build_chain(Graph<BuiltinOps> const& group, std::vector<NodeId> const& ops, Preparation& p) {
    if (p.outputs().size() != 1) p.reject("an elementwise chain writes one output");
    std::vector<std::uint32_t> slot(group.id_bound(), 0);
    auto inputs = group.inputs();
    for (std::uint32_t i = 0; i < inputs.size(); ++i) slot[inputs[i]] = i;
    auto next = static_cast<std::uint32_t>(inputs.size());
    std::vector<detail::ChainStep> steps;
    for (NodeId n : ops) {
      detail::ChainStep s;
      if (!detail::chain_step(group[n].op, s)) p.reject(std::string(group[n].op_name()) + " is not an elementwise op of a chain");
      s.a = slot[group[n].inputs[0].node];
      if (s.batch_norm) {
        for (std::size_t k = 0; k < 4; ++k) {
          s.params[k] = slot[group[n].inputs[k + 1].node];
          if (s.params[k] >= inputs.size() || !p.constant_input(s.params[k])) p.reject("a BatchNorm in a chain needs constant parameters");
        }
      } else if (group[n].inputs.size() == 2) {
        s.b = slot[group[n].inputs[1].node];
      }
      s.dst = slot[n] = next++;
      steps.push_back(s);
    }
    if (inputs.size() > 64) p.reject("an elementwise chain reads at most 64 tensors");
    std::uint32_t const result = slot[group.outputs()[0].node];
    std::int64_t const n = p.outputs()[0].numel();
    std::uint32_t const slots = next;
    int const threads = p.threads();
    std::size_t const scratch = p.workspace(static_cast<std::size_t>(threads) * slots * block * sizeof(float));
    // Inputs lying in another layout than the output (a 4-D value only one of whose readers
    // takes channels-last stays plain) are reordered into the output's first.
    Layout const out_layout = p.output_layout(0);
    std::vector<std::size_t> convert(inputs.size(), SIZE_MAX);
    Shape const shape = p.outputs()[0].shape;
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (p.inputs()[i].shape == shape && p.input_layout(i) != out_layout) convert[i] = p.workspace(static_cast<std::size_t>(n) * sizeof(float));
    // BatchNorm's channel of element i: i % C channels-last, (i / inner) % C plain.
    std::int64_t const channels = shape.rank() >= 2 ? shape[1] : 1;
    std::int64_t const inner = shape.rank() >= 2 ? n / std::max<std::int64_t>(shape[0] * channels, 1) : 1;
    p.run("own elementwise chain (" + std::to_string(steps.size()) + " ops, one pass)", [=](Io const& io) -> Runner {
      std::vector<float const*> in(io.in.begin(), io.in.end());
      std::vector<std::pair<float const*, float*>> reorders;  // (from, to)
      for (std::size_t i = 0; i < in.size(); ++i)
        if (convert[i] != SIZE_MAX) {
          auto* to = static_cast<float*>(io.workspace[convert[i]]);
          reorders.emplace_back(in[i], to);
          in[i] = to;
        }
      // Per BatchNorm step: mean, scale / sqrt(var + eps), bias per channel (the parameters are
      // constants, in place when binding).
      std::vector<std::array<std::vector<float>, 3>> norms(steps.size());
      for (std::size_t k = 0; k < steps.size(); ++k) {
        auto const& s = steps[k];
        if (!s.batch_norm) continue;
        float const *scale = io.in[s.params[0]], *bias = io.in[s.params[1]], *mean = io.in[s.params[2]], *var = io.in[s.params[3]];
        for (std::int64_t c = 0; c < channels; ++c) {
          norms[k][0].push_back(mean[c]);
          norms[k][1].push_back(scale[c] / std::sqrt(var[c] + s.alpha));
          norms[k][2].push_back(bias[c]);
        }
      }
      float* out = io.out[0];
      auto* tmp = static_cast<float*>(io.workspace[scratch]);
      return [=] {
        if (!reorders.empty()) {
          // Plain <-> channels-last, element by element: x[n][c][h][w] at (n*C + c)*HW + h*W + w
          // plain, n*HW*C + (h*W + w)*C + c channels-last (kernel.hpp's layout_strides).
          std::int64_t const N = shape[0], C = shape[1], HW = shape[2] * shape[3];
          bool const to_cl = out_layout == Layout::channels_last;
          for (auto [from, to] : reorders) {
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
            for (std::int64_t nc = 0; nc < N * C; ++nc) {
              std::int64_t const b = nc / C, c = nc % C;
              float const* src = to_cl ? from + nc * HW : from + b * HW * C + c;
              float* dst = to_cl ? to + b * HW * C + c : to + nc * HW;
              for (std::int64_t i = 0; i < HW; ++i) (to_cl ? dst[i * C] : dst[i]) = to_cl ? src[i] : src[i * C];
            }
          }
        }
        std::int64_t const blocks = (n + block - 1) / block;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
        for (std::int64_t blk = 0; blk < blocks; ++blk) {
          std::int64_t const begin = blk * block, len = std::min(block, n - begin);
#if defined(_OPENMP)
          float* mine = tmp + static_cast<std::size_t>(omp_get_thread_num()) * slots * block;
#else
          float* mine = tmp;
#endif
          std::array<float const*, 64> src{};
          auto at = [&](std::uint32_t s) -> float* { return s == result ? out + begin : mine + static_cast<std::int64_t>(s) * block; };
          for (std::size_t i = 0; i < in.size(); ++i) src[i] = in[i] + begin;
          auto read = [&](std::uint32_t s) -> float const* { return s < in.size() ? src[s] : at(s); };
          for (std::size_t k = 0; k < steps.size(); ++k) {
            auto const& s = steps[k];
            float* y = at(s.dst);
            if (s.batch_norm) {
              float const* x = read(s.a);
              float const *mean = norms[k][0].data(), *a = norms[k][1].data(), *bias = norms[k][2].data();
              if (out_layout == Layout::channels_last) {  // runs of consecutive channels: the inner loop vectorises
                for (std::int64_t i = 0; i < len;) {
                  std::int64_t const c0 = (begin + i) % channels, run = std::min(len - i, channels - c0);
#pragma omp simd
                  for (std::int64_t k = 0; k < run; ++k) y[i + k] = (x[i + k] - mean[c0 + k]) * a[c0 + k] + bias[c0 + k];
                  i += run;
                }
              } else {
                for (std::int64_t i = 0; i < len;) {
                  std::int64_t const at_i = begin + i, c = (at_i / inner) % channels, end = std::min(len, i + inner - at_i % inner);
#pragma omp simd
                  for (std::int64_t j = i; j < end; ++j) y[j] = (x[j] - mean[c]) * a[c] + bias[c];
                  i = end;
                }
              }
            } else if (s.scale) {
              float const* x = read(s.a);
#pragma omp simd
              for (std::int64_t i = 0; i < len; ++i) y[i] = x[i] * s.alpha + s.beta;
            } else if (s.unary) {
              s.unary(read(s.a), y, len, s.alpha, s.beta);
            } else {
              s.binary(read(s.a), read(s.b), y, len);
            }
          }
        }
      };
    });
  }

  static void build_depthwise(Conv2D const& op, Preparation& p) {
    if (!detail::depthwise(AnyOp{op}, p.inputs())) p.reject("not a depthwise convolution");
    Shape const& xs = p.inputs()[0].shape;
    Shape const& ws = p.inputs()[1].shape;
    Shape const& ys = p.outputs()[0].shape;
    std::int64_t const N = xs[0], C = xs[1], H = xs[2], W = xs[3], R = ws[2], S = ws[3], Ho = ys[2], Wo = ys[3];
    bool const bias = p.inputs().size() == 3;
    int const threads = p.threads();
    p.run("own direct depthwise convolution", [=](Io const& io) -> Runner {
      float const *x = io.in[0], *w = io.in[1], *b = bias ? io.in[2] : nullptr;
      float* y = io.out[0];
      return [=] {
        auto [sh, sw] = op.stride;
        auto [dh, dw] = op.dilation;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
        for (std::int64_t nc = 0; nc < N * C; ++nc) {
          std::int64_t const c = nc % C;
          float const* plane = x + nc * H * W;
          float const* k = w + c * R * S;
          float* out = y + nc * Ho * Wo;
          float const b0 = b ? b[c] : 0.f;
          for (std::int64_t i = 0; i < Ho * Wo; ++i) out[i] = b0;
          for (std::int64_t r = 0; r < R; ++r)
            for (std::int64_t s = 0; s < S; ++s) {
              float const kv = k[r * S + s];
              std::int64_t const h_off = r * dh - op.pad[0], w_off = s * dw - op.pad[1];
              auto [oh0, oh1] = valid_range(h_off, sh, H, Ho);
              auto [ow0, ow1] = valid_range(w_off, sw, W, Wo);
              for (std::int64_t oh = oh0; oh < oh1; ++oh) {
                float const* src = plane + (oh * sh + h_off) * W + w_off;
                float* dst = out + oh * Wo;
                for (std::int64_t ow = ow0; ow < ow1; ++ow) dst[ow] += kv * src[ow * sw];
              }
            }
          if (op.act != Activation::none)
            for (std::int64_t i = 0; i < Ho * Wo; ++i) out[i] = apply(op.act, out[i]);
        }
      };
    });
  }
};

}  // namespace autograph::cpu::backends
