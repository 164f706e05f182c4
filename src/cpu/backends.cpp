// The CPU backends' kernels (autograph/cpu/backends/), compiled once into autograph_cpu: every
// file that placed a model compiled them again (about 3 s of CPU each).
#include "autograph/cpu/backends/blas.hpp"
#include "autograph/cpu/backends/onednn.hpp"
#include "autograph/cpu/backends/own_kernels.hpp"

#include <cblas.h>

#include <algorithm>
#include <mutex>

#include "batch_norm_channels.hpp"
#include "loop_threads.hpp"

namespace autograph::cpu::backends {

namespace {
using cpu::detail::loop_threads;  // one thread under ThreadSanitizer (src/cpu/loop_threads.hpp)

/// Turns OpenBLAS's own thread pool off for the process: every sgemm then runs on the thread
/// that calls it, and the BLAS kernel splits its products over the threads the runtime gives
/// it (Preparation::threads(), cpu/kernel.hpp). The count is process-wide
/// (openblas_set_num_threads; OpenBLAS 0.3.21, Debian's pthreads build, has no per-call or
/// per-thread count), so setting it around each call would race with concurrent streams
/// calling sgemm at the same time; and with the pool on, every stream's sgemm asks the pool for
/// every core, whatever the runtime gave the kernel. The reference kernels' products in the
/// same process then run on their caller's thread too.
void openblas_on_caller_threads() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}
}  // namespace

std::optional<AnyOp> OneDnn::as_op(Graph<BuiltinOps> const& group) const {
    auto ops = group_ops(group);
    if (ops.size() == 1) return group[ops[0]].op;
    if (ops.size() == 2) {
      Activation act = activation_of(group[ops[1]].op);
      if (auto const* c = group[ops[0]].get_if<Conv2D>()) {
        Conv2D fused = *c;
        fused.act = act;
        return AnyOp{fused};
      }
      if (auto const* m = group[ops[0]].get_if<MatMul>()) {
        MatMul fused = *m;
        fused.act = act;
        return AnyOp{fused};
      }
    }
    return std::nullopt;
  }
void OneDnn::build(Graph<BuiltinOps> const& group, Preparation& p) const {
    auto op = as_op(group);
    if (!op) p.reject("oneDNN runs one op, or a conv/matmul with its activation");
    prepare_builtin(*op, p);
  }


namespace {
/// A 1x1, stride-1, unpadded, ungrouped convolution of a non-empty image: Y = W X over the
/// pixels (an empty one goes to the general path, whose gemm handles empty products).
bool pointwise(Conv2D const& op, Shape const& x, Shape const& w) {
  return x.rank() == 4 && w.rank() == 4 && x.numel() > 0 && w[0] > 0 && w[2] == 1 && w[3] == 1 && op.groups == 1 && op.stride == std::array<std::int64_t, 2>{1, 1} &&
         op.pad == std::array<std::int64_t, 4>{};
}
}  // namespace

bool Blas::any_layout(Graph<BuiltinOps> const& group) const {
    auto ops = group_ops(group);
    auto const* c = ops.empty() ? nullptr : group[ops[0]].get_if<Conv2D>();
    return c && group[ops[0]].inputs.size() >= 2 && pointwise(*c, group.desc(group[ops[0]].inputs[0]).shape, group.desc(group[ops[0]].inputs[1]).shape);
  }

void Blas::build(Graph<BuiltinOps> const& group, Preparation& p) const {
    auto ops = group_ops(group);
    if (auto const* m = ops.empty() || ops.size() > 2 ? nullptr : group[ops[0]].get_if<MatMul>()) {
      MatMul op = *m;
      if (ops.size() == 2) op.act = activation_of(group[ops[1]].op);
      return build_matmul(op, p);
    }
    auto const* c = ops.empty() ? nullptr : group[ops[0]].get_if<Conv2D>();
    if (!c || ops.size() > 2) p.reject("BLAS runs a convolution or a matrix product, optionally with its activation");
    Conv2D op = *c;
    if (ops.size() == 2) op.act = activation_of(group[ops[1]].op);
    if (pointwise(op, p.inputs()[0].shape, p.inputs()[1].shape)) return build_pointwise(op, p);
    Shape const& xs = p.inputs()[0].shape;
    Shape const& ws = p.inputs()[1].shape;
    Shape const& ys = p.outputs()[0].shape;
    std::int64_t const N = xs[0], C = xs[1], H = xs[2], W = xs[3], K = ws[0], Cg = ws[1], R = ws[2], S = ws[3], Ho = ys[2], Wo = ys[3];
    std::int64_t const G = op.groups, Kg = K / G, field = Cg * R * S, pixels = Ho * Wo;
    bool const direct = R == 1 && S == 1 && op.stride == std::array<std::int64_t, 2>{1, 1} && op.pad == std::array<std::int64_t, 4>{};
    bool const bias = p.inputs().size() == 3;
    std::size_t const col = p.workspace(direct ? 0 : static_cast<std::size_t>(C * R * S * pixels) * sizeof(float));
    // Exactly the runtime's threads for this kernel: OpenBLAS runs on the calling thread
    // (openblas_on_caller_threads above) and the kernel splits each image's products over
    // its own OpenMP threads, by group and by blocks of output pixels (columns of B and C).
    int const threads = loop_threads(p.threads());
    openblas_on_caller_threads();
    std::int64_t const blocks = G >= threads ? 1 : std::min<std::int64_t>((threads + G - 1) / G, std::max<std::int64_t>(pixels / 64, 1));
    std::int64_t const width = (pixels + blocks - 1) / blocks;
    p.run("OpenBLAS im2col + sgemm convolution (" + std::to_string(threads) + " threads, sgemm on each)", [=](Io const& io) -> Runner {
      float const *x = io.in[0], *w = io.in[1], *b = bias ? io.in[2] : nullptr;
      float* y = io.out[0];
      auto* cols = static_cast<float*>(io.workspace[col]);
      return [=] {
        for (std::int64_t n = 0; n < N; ++n) {
          float const* image = x + n * C * H * W;
          float const* fields = image;
          if (!direct) {
            // Each channel's R*S rows of the columns, independently.
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
            for (std::int64_t c = 0; c < C; ++c) im2col(image + c * H * W, 1, H, W, R, S, Ho, Wo, op, cols + c * R * S * pixels);
            fields = cols;
          }
          float* out = y + n * K * pixels;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
          for (std::int64_t task = 0; task < G * blocks; ++task) {
            std::int64_t const g = task / blocks, j0 = (task % blocks) * width, j1 = std::min(pixels, j0 + width);
            if (j0 >= j1) continue;
            float* tile = out + g * Kg * pixels + j0;
            gemm(Kg, j1 - j0, field, w + g * Kg * field, field, fields + g * field * pixels + j0, pixels, tile, pixels);
            if (b || op.act != Activation::none)
              for (std::int64_t k = 0; k < Kg; ++k) {
                float const bk = b ? b[g * Kg + k] : 0.f;
                float* row = tile + k * pixels;
                for (std::int64_t j = 0; j < j1 - j0; ++j) row[j] = apply(op.act, row[j] + bk);
              }
          }
        }
      };
    });
  }


/// A matrix product as sgemm on the kernel's threads (OpenBLAS's pool is off), each thread one
/// block: of the output's columns when the second operand is the larger (a linear layer's
/// weight: each thread then reads its part of it once), else of its rows; over the batches
/// first when there are at least as many as threads. Then the bias and the activation.
void Blas::build_matmul(MatMul const& op, Preparation& p) {
    Shape const& as = p.inputs()[0].shape;
    Shape const& bs = p.inputs()[1].shape;
    std::int64_t const K = bs[bs.rank() - 2], N = bs[bs.rank() - 1];
    bool const shared = bs.rank() == 2;  // one B for every row of A, whatever A's rank
    std::int64_t const batches = shared ? 1 : bs.numel() / std::max<std::int64_t>(K * N, 1);
    // Rows of A: with a shared B, every dimension of A but the last (counted, not divided out
    // of A's size, which is 0 when K is: such a product gives the bias, or zeros).
    std::int64_t M = shared ? 1 : as[as.rank() - 2];
    if (shared)
      for (std::size_t d = 0; d + 1 < as.rank(); ++d) M *= as[d];
    if (p.outputs()[0].numel() != batches * M * N || (!shared && as.numel() != batches * M * K))
      p.reject("BLAS runs a matrix product of a 2-D second operand or of operands with equal batch dimensions, not " +
               as.to_string() + " @ " + bs.to_string());
    bool const bias = p.inputs().size() == 3;
    int const threads = loop_threads(p.threads());
    openblas_on_caller_threads();
    bool const by_columns = K * N >= M * K;
    std::int64_t const span = by_columns ? N : M;
    std::int64_t const blocks = batches >= threads ? 1 : std::min<std::int64_t>(threads, std::max<std::int64_t>(span / 16, 1));
    std::int64_t const width = (span + blocks - 1) / blocks;
    auto i = [](std::int64_t v) { return static_cast<blasint>(v); };
    p.run("OpenBLAS sgemm matrix product (" + std::to_string(threads) + " threads, by " + (by_columns ? "columns" : "rows") + ")",
          [=](Io const& io) -> Runner {
            float const *a = io.in[0], *b = io.in[1], *c = bias ? io.in[2] : nullptr;
            float* y = io.out[0];
            return [=] {
              if (M == 0 || N == 0) return;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
              for (std::int64_t task = 0; task < batches * blocks; ++task) {
                std::int64_t const batch = task / blocks, j0 = (task % blocks) * width, j1 = std::min(span, j0 + width);
                if (j0 >= j1) continue;
                float const* ab = a + batch * M * K;
                float const* bb = b + (shared ? 0 : batch * K * N);
                float* yb = y + batch * M * N;
                std::int64_t const r0 = by_columns ? 0 : j0, r1 = by_columns ? M : j1, c0 = by_columns ? j0 : 0, c1 = by_columns ? j1 : N;
                if (K == 0) {
                  for (std::int64_t r = r0; r < r1; ++r) std::fill(yb + r * N + c0, yb + r * N + c1, 0.f);
                } else {
                  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(r1 - r0), i(c1 - c0), i(K), 1.f, ab + r0 * K, i(K), bb + c0, i(N),
                              0.f, yb + r0 * N + c0, i(N));
                }
                if (c || op.act != Activation::none)
                  for (std::int64_t r = r0; r < r1; ++r)
                    for (std::int64_t j = c0; j < c1; ++j) yb[r * N + j] = apply(op.act, yb[r * N + j] + (c ? c[j] : 0.f));
              }
            };
          });
  }


/// The pointwise convolution as one sgemm per block of pixels, in the layouts lowering gives:
/// per image, plain X is C x P and Y is K x P; channels-last X is P x C and Y is P x K (P pixels,
/// kernel.hpp's layout_strides). Plain Y = W X; channels-last Y = X^T W^T; the transposes are
/// sgemm's TransA/TransB flags, so no tensor is reordered. The weight K x C x 1 x 1 lies the
/// same in both layouts.
void Blas::build_pointwise(Conv2D const& op, Preparation& p) {
    Shape const& xs = p.inputs()[0].shape;
    Shape const& ws = p.inputs()[1].shape;
    std::int64_t const N = xs[0], C = xs[1], P = xs[2] * xs[3], K = ws[0];
    bool const bias = p.inputs().size() == 3;
    bool const x_cl = p.input_layout(0) == Layout::channels_last, y_cl = p.output_layout(0) == Layout::channels_last;
    int const threads = loop_threads(p.threads());
    openblas_on_caller_threads();
    std::int64_t const blocks = std::min<std::int64_t>(threads, std::max<std::int64_t>(P / 64, 1)), width = (P + blocks - 1) / blocks;
    auto i = [](std::int64_t v) { return static_cast<blasint>(v); };
    std::string layouts = std::string(x_cl ? "channels-last" : "plain") + " -> " + (y_cl ? "channels-last" : "plain");
    p.run("OpenBLAS sgemm pointwise convolution (" + layouts + ", " + std::to_string(threads) + " threads)", [=](Io const& io) -> Runner {
      float const *x = io.in[0], *w = io.in[1], *b = bias ? io.in[2] : nullptr;
      float* y = io.out[0];
      return [=] {
        for (std::int64_t n = 0; n < N; ++n) {
          float const* xn = x + n * C * P;
          float* yn = y + n * K * P;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
          for (std::int64_t blk = 0; blk < blocks; ++blk) {
            std::int64_t const j0 = blk * width, j1 = std::min(P, j0 + width), m = j1 - j0;
            if (m <= 0) continue;
            if (!y_cl) {  // Y[:, j0:j1] (K x m) = W (K x C) X[:, j0:j1] (C x m)
              cblas_sgemm(CblasRowMajor, CblasNoTrans, x_cl ? CblasTrans : CblasNoTrans, i(K), i(m), i(C), 1.f, w, i(C),
                          x_cl ? xn + j0 * C : xn + j0, x_cl ? i(C) : i(P), 0.f, yn + j0, i(P));
              if (b || op.act != Activation::none)
                for (std::int64_t k = 0; k < K; ++k)
                  for (std::int64_t j = j0; j < j1; ++j) yn[k * P + j] = apply(op.act, yn[k * P + j] + (b ? b[k] : 0.f));
            } else {  // Y[j0:j1, :] (m x K) = X[:, j0:j1]^T (m x C) W^T (C x K)
              cblas_sgemm(CblasRowMajor, x_cl ? CblasNoTrans : CblasTrans, CblasTrans, i(m), i(K), i(C), 1.f, x_cl ? xn + j0 * C : xn + j0,
                          x_cl ? i(C) : i(P), w, i(C), 0.f, yn + j0 * K, i(K));
              if (b || op.act != Activation::none)
                for (std::int64_t j = j0; j < j1; ++j)
                  for (std::int64_t k = 0; k < K; ++k) yn[j * K + k] = apply(op.act, yn[j * K + k] + (b ? b[k] : 0.f));
            }
          }
        }
      };
    });
  }


namespace detail {
bool chain_step(AnyOp const& op, ChainStep& s) {
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

}  // namespace detail

  /// An elementwise chain computes on any layout: inputs in another layout than the output's
  /// are converted first (build_chain).
bool OwnKernels::any_layout(Graph<BuiltinOps> const& group) const {
    auto ops = group_ops(group);
    return !(ops.size() == 1 && group[ops[0]].is<Conv2D>());
  }

void OwnKernels::build(Graph<BuiltinOps> const& group, Preparation& p) const {
    auto ops = group_ops(group);
    if (ops.size() == 1 && group[ops[0]].is<Conv2D>()) return build_depthwise(*group[ops[0]].get_if<Conv2D>(), p);
    build_chain(group, ops, p);
  }

void OwnKernels::build_chain(Graph<BuiltinOps> const& group, std::vector<NodeId> const& ops, Preparation& p) {
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
    int const threads = loop_threads(p.threads());
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
      std::vector<std::vector<float>> norms(steps.size());  // mean, a, bias: `channels` each
      for (std::size_t k = 0; k < steps.size(); ++k) {
        auto const& s = steps[k];
        if (!s.batch_norm) continue;
        norms[k].resize(static_cast<std::size_t>(3 * channels));
        cpu::detail::batch_norm_channels(io.in[s.params[0]], io.in[s.params[1]], io.in[s.params[2]], io.in[s.params[3]], s.alpha, channels, norms[k].data());
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
              float const *mean = norms[k].data(), *a = mean + channels, *bias = a + channels;
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

void OwnKernels::build_depthwise(Conv2D const& op, Preparation& p) {
    if (!detail::depthwise(AnyOp{op}, p.inputs())) p.reject("not a depthwise convolution");
    Shape const& xs = p.inputs()[0].shape;
    Shape const& ws = p.inputs()[1].shape;
    Shape const& ys = p.outputs()[0].shape;
    std::int64_t const N = xs[0], C = xs[1], H = xs[2], W = xs[3], R = ws[2], S = ws[3], Ho = ys[2], Wo = ys[3];
    bool const bias = p.inputs().size() == 3;
    int const threads = loop_threads(p.threads());
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

}  // namespace autograph::cpu::backends
