#pragma once
// C = act(A @ B + bias) on the CPU, tunable (issue 18): A [m, k], B [k, n], bias [n], C [m, n],
// dense row-major; act one of the ops' activations (none, relu, sigmoid, tanh). Two engines
// form one space:
// - own: blocked loops with explicit tiles: the output in mc x nc tiles (the OpenMP work items),
//   the inner dimension in kc blocks (a kc x nc panel of B stays in L2 while every row tile of
//   the block passes over it), register tiles of `unroll` rows by vectors of `vector_width`
//   lanes, and the bias and activation applied to a tile while it is in cache;
// - onednn: oneDNN's matmul primitive with the bias and the activation fused as post-ops
//   (https://oneapi-src.github.io/oneDNN/dev_guide_matmul.html), B in its plain layout or in
//   the blocked layout oneDNN picks (format_tag::any), reordered once when the plan is made (B
//   is then a constant, a linear layer's weight).
// Which is faster depends on the shape and the cores (benchmark/matmul_epilogue_bench.cpp
// measures both); the tuner picks per problem. MatmulEpilogue models tuning::TunableKernel; a
// MatmulEpiloguePlan runs one configuration (it makes oneDNN's primitive once).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "autograph/ops/activation.hpp"
#include "autograph/tuning/space.hpp"

namespace autograph::cpu::tuned {

struct MatmulEpilogueProblem {
  std::int64_t m = 0, n = 0, k = 0;
  bool has_bias = false;
  Activation act = Activation::none;
  /// "matmul_epilogue m=197 n=3072 k=768 bias act=relu": how errors and logs name it.
  std::string to_string() const;
};

enum class MatmulEngine : std::uint8_t { own, onednn };

/// A point of the space. The own engine reads the tile fields; oneDNN reads threads and
/// blocked_weights only (in the space its tile knobs sit at their first values, so that each
/// oneDNN configuration is one point).
struct MatmulEpilogueConfig {
  MatmulEngine engine = MatmulEngine::own;
  std::int64_t mc = 64, nc = 256, kc = 256;  // output tile rows and columns, inner block
  std::int64_t vector_width = 8;             // float lanes: 4 (SSE), 8 (AVX2+FMA), 16 (AVX-512)
  std::int64_t unroll = 4;                   // rows per register tile: 1, 2, 4 or 8
  std::int64_t threads = 1;
  bool blocked_weights = false;  // oneDNN: B reordered once into the layout the primitive picks
  bool operator==(MatmulEpilogueConfig const&) const = default;
};

struct MatmulEpilogue {
  using Problem = MatmulEpilogueProblem;
  using Config = MatmulEpilogueConfig;
  static constexpr std::string_view name = "matmul_epilogue";

  /// engine {own, onednn}, mc {32, 64, 128}, nc {64, 128, 256, 512}, kc {64, 128, 256, 512},
  /// vector_width (this CPU's), unroll {1, 2, 4, 8}, threads (1, powers of two, every core),
  /// blocked_weights {0, 1}.
  static std::vector<tuning::Knob> knobs(Problem const& p);
  static Config config(Problem const& p, tuning::Choice const& ch);
  static bool is_valid(Problem const& p, Config const& c) { return why_invalid(p, c).empty(); }
  /// Empty when valid; otherwise why not.
  static std::string why_invalid(Problem const& p, Config const& c);
  /// flops, bytes, engine (0 own, 1 oneDNN), mc, nc, kc, vector_width, unroll, threads,
  /// blocked_weights, tiles (work items), tiles per thread, k blocks, m, n, k.
  static std::vector<float> features(Problem const& p, Config const& c);
  /// Untuned: oneDNN, plain weights, every core: the library the other CPU kernels use.
  static Config default_config(Problem const& p);
  static std::string signature(Problem const& p) { return p.to_string(); }
  static std::string to_string(Config const& c);
};

/// Throws autograph::Error naming the problem when it is not one (sizes < 1).
void check(MatmulEpilogueProblem const& p);

/// One configuration made ready for a problem: oneDNN's primitive and scratchpad created (and
/// B reordered, with blocked_weights) once; run() allocates nothing.
class MatmulEpiloguePlan {
 public:
  /// @param b B's data when blocked_weights (reordered now and kept; run() then ignores its b),
  ///        else may be null.
  /// @throws autograph::Error for an invalid problem or config, or oneDNN refusing it.
  MatmulEpiloguePlan(MatmulEpilogueProblem const& p, MatmulEpilogueConfig const& c, float const* b = nullptr);
  ~MatmulEpiloguePlan();
  MatmulEpiloguePlan(MatmulEpiloguePlan&&) noexcept;
  MatmulEpiloguePlan& operator=(MatmulEpiloguePlan&&) noexcept;

  /// c = act(a @ b + bias); bias is null iff the problem has none.
  void run(float const* a, float const* b, float const* bias, float* c) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace autograph::cpu::tuned
