// The tunable matrix product with bias and activation (autograph/cpu/tuned/matmul_epilogue.hpp):
// the space, the own engine's tiles (once per instruction set, like attention.cpp), and oneDNN's
// matmul with post-ops.
#include "autograph/cpu/tuned/matmul_epilogue.hpp"

#include <omp.h>

#include <algorithm>
#include <sstream>
#include <unordered_map>

#include "../primitive.hpp"
#include "autograph/core/error.hpp"
#include "simd.hpp"
#include "space_helpers.hpp"

namespace autograph::cpu::tuned {

namespace {


using simd::vf;
using simd::vi;
#define AUTOGRAPH_TUNED_KERNEL "matmul_block.inc"
#include "isa_variants.inc"


std::string problem_error(MatmulEpilogueProblem const& p, std::string const& why) { return p.to_string() + ": " + why; }

}  // namespace

std::string MatmulEpilogueProblem::to_string() const {
  std::ostringstream s;
  s << "matmul_epilogue m=" << m << " n=" << n << " k=" << k << (has_bias ? " bias" : " no-bias") << " act=" << autograph::to_string(act);
  return s.str();
}

void check(MatmulEpilogueProblem const& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1) throw Error(problem_error(p, "m, n and k must be >= 1"));
}

// ---- the space ------------------------------------------------------------------------------

std::vector<tuning::Knob> MatmulEpilogue::knobs(Problem const&) {
  std::vector<std::int64_t> widths;
  for (std::int64_t w : {4, 8, 16})
    if (simd::cpu_supports_width(w)) widths.push_back(w);
  return {{"engine", {0, 1}},     {"mc", {32, 64, 128}},        {"nc", {64, 128, 256, 512}},       {"kc", {64, 128, 256, 512}},
          {"vector_width", widths}, {"unroll", {1, 2, 4, 8}}, {"threads", thread_counts()}, {"blocked_weights", {0, 1}}};
}

MatmulEpilogueConfig MatmulEpilogue::config(Problem const& p, tuning::Choice const& ch) {
  auto ks = knobs(p);
  if (ch.size() != ks.size())
    throw Error("matmul_epilogue: a choice has " + std::to_string(ch.size()) + " indices, the space " + std::to_string(ks.size()) + " knobs");
  auto value = [&](std::size_t i) {
    if (ch[i] >= ks[i].values.size())
      throw Error("matmul_epilogue: choice index " + std::to_string(ch[i]) + " of knob " + ks[i].name + " is past its " +
                  std::to_string(ks[i].values.size()) + " values");
    return ks[i].values[ch[i]];
  };
  return {.engine = value(0) == 0 ? MatmulEngine::own : MatmulEngine::onednn,
          .mc = value(1),
          .nc = value(2),
          .kc = value(3),
          .vector_width = value(4),
          .unroll = value(5),
          .threads = value(6),
          .blocked_weights = value(7) != 0};
}

std::string MatmulEpilogue::why_invalid(Problem const& p, Config const& c) {
  auto str = [](std::int64_t x) { return std::to_string(x); };
  if (c.threads < 1 || c.threads > available_cores()) return "threads " + str(c.threads) + " outside 1 .. " + str(available_cores()) + " cores";
  auto ks = knobs(p);
  if (c.engine == MatmulEngine::onednn) {
    // One point per oneDNN configuration: the tile knobs it does not read at their first values.
    if (c.mc != ks[1].values[0] || c.nc != ks[2].values[0] || c.kc != ks[3].values[0] || c.vector_width != ks[4].values[0] ||
        c.unroll != ks[5].values[0])
      return "onednn reads no tile knob (mc, nc, kc, vector_width, unroll at their first values)";
    return {};
  }
  if (c.blocked_weights) return "own engine: blocked_weights is oneDNN's";
  if (c.vector_width != 4 && c.vector_width != 8 && c.vector_width != 16) return "vector_width " + str(c.vector_width) + " is not 4, 8 or 16";
  if (!simd::cpu_supports_width(c.vector_width)) return "this CPU has no " + str(c.vector_width) + "-lane float vectors";
  if (c.unroll != 1 && c.unroll != 2 && c.unroll != 4 && c.unroll != 8) return "unroll " + str(c.unroll) + " is not 1, 2, 4 or 8";
  if (c.mc < 1 || c.kc < 1) return "mc " + str(c.mc) + " and kc " + str(c.kc) + " must be >= 1";
  if (c.unroll > c.mc) return "unroll " + str(c.unroll) + " > mc " + str(c.mc) + " (no register tile would be full)";
  if (c.nc < c.vector_width || c.nc % c.vector_width != 0) return "nc " + str(c.nc) + " is not a multiple of vector_width " + str(c.vector_width);
  return {};
}

std::vector<float> MatmulEpilogue::features(Problem const& p, Config const& c) {
  bool const own = c.engine == MatmulEngine::own;
  std::int64_t const tiles = own ? ceil_div(p.m, c.mc) * ceil_div(p.n, c.nc) : 0;
  double const flops = 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k);
  double const bytes = 4.0 * static_cast<double>(p.m * p.k + p.k * p.n + p.m * p.n + (p.has_bias ? p.n : 0));
  auto f = [](auto x) { return static_cast<float>(x); };
  return {f(flops),
          f(bytes),
          own ? 0.f : 1.f,
          f(c.mc),
          f(c.nc),
          f(c.kc),
          f(c.vector_width),
          f(c.unroll),
          f(c.threads),
          c.blocked_weights ? 1.f : 0.f,
          f(tiles),
          f(ceil_div(tiles, c.threads)),
          f(own ? ceil_div(p.k, c.kc) : 0),
          f(p.m),
          f(p.n),
          f(p.k)};
}

MatmulEpilogueConfig MatmulEpilogue::default_config(Problem const& p) {
  auto ks = knobs(p);
  return {.engine = MatmulEngine::onednn,
          .mc = ks[1].values[0],
          .nc = ks[2].values[0],
          .kc = ks[3].values[0],
          .vector_width = ks[4].values[0],
          .unroll = ks[5].values[0],
          .threads = available_cores(),
          .blocked_weights = false};
}

std::string MatmulEpilogue::to_string(Config const& c) {
  std::ostringstream s;
  if (c.engine == MatmulEngine::onednn)
    s << "onednn " << (c.blocked_weights ? "blocked" : "plain") << " weights threads=" << c.threads;
  else
    s << "own mc=" << c.mc << " nc=" << c.nc << " kc=" << c.kc << " w=" << c.vector_width << " unroll=" << c.unroll << " threads=" << c.threads;
  return s.str();
}

// ---- the plan -------------------------------------------------------------------------------

struct MatmulEpiloguePlan::Impl {
  MatmulEpilogueProblem p;
  MatmulEpilogueConfig c;
  // oneDNN
  dnnl::matmul prim;
  dnnl::memory::desc a_md, b_md, b_plain_md, bias_md, c_md;
  std::vector<float> blocked_b;
  std::vector<char> scratchpad;
  dnnl::memory::desc scratch_md;
  dnnl::stream stream;

  void run_own(float const* a, float const* b, float const* bias, float* out) const {
    void (*tile)(MatmulEpilogueProblem const&, MatmulEpilogueConfig const&, float const*, float const*, float const*, float*, std::int64_t,
                 std::int64_t) = c.vector_width == 16 ? avx512::matmul_tile<16> : c.vector_width == 8 ? avx2::matmul_tile<8> : sse2::matmul_tile<4>;
    std::int64_t const col_tiles = ceil_div(p.n, c.nc), items = ceil_div(p.m, c.mc) * col_tiles;
    std::int64_t const threads = loop_threads(c.threads);
    if (threads == 1) {
      for (std::int64_t i = 0; i < items; ++i) tile(p, c, a, b, bias, out, i / col_tiles * c.mc, i % col_tiles * c.nc);
      return;
    }
#pragma omp parallel for num_threads(static_cast<int>(threads)) schedule(static)
    for (std::int64_t i = 0; i < items; ++i) tile(p, c, a, b, bias, out, i / col_tiles * c.mc, i % col_tiles * c.nc);
  }

  void run_onednn(float const* a, float const* b, float const* bias, float* out) const {
    auto const& eng = builtin::detail::engine();
    auto mem = [&](dnnl::memory::desc const& d, void const* ptr) { return dnnl::memory(d, eng, const_cast<void*>(ptr)); };
    std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, mem(a_md, a)},
                                               {DNNL_ARG_WEIGHTS, mem(b_md, c.blocked_weights ? blocked_b.data() : b)},
                                               {DNNL_ARG_DST, mem(c_md, out)},
                                               {DNNL_ARG_SCRATCHPAD, mem(scratch_md, scratchpad.data())}};
    if (p.has_bias) args.emplace(DNNL_ARG_BIAS, mem(bias_md, bias));
    builtin::detail::ThreadScope threads(static_cast<int>(c.threads));
    dnnl::stream s = stream;
    prim.execute(s, args);
    s.wait();
  }
};

MatmulEpiloguePlan::MatmulEpiloguePlan(MatmulEpilogueProblem const& p, MatmulEpilogueConfig const& c, float const* b)
    : impl_(std::make_unique<Impl>()) {
  check(p);
  if (std::string why = MatmulEpilogue::why_invalid(p, c); !why.empty())
    throw Error(p.to_string() + ": config " + MatmulEpilogue::to_string(c) + ": " + why);
  impl_->p = p;
  impl_->c = c;
  if (c.engine == MatmulEngine::own) return;
  if (c.blocked_weights && !b) throw Error(problem_error(p, "blocked_weights needs B's data when the plan is made"));
  using dnnl::memory;
  using tag = memory::format_tag;
  auto const& eng = builtin::detail::engine();
  Impl& i = *impl_;
  i.a_md = memory::desc({p.m, p.k}, memory::data_type::f32, tag::ab);
  i.b_plain_md = memory::desc({p.k, p.n}, memory::data_type::f32, tag::ab);
  i.bias_md = memory::desc({1, p.n}, memory::data_type::f32, tag::ab);
  i.c_md = memory::desc({p.m, p.n}, memory::data_type::f32, tag::ab);
  memory::desc b_want = c.blocked_weights ? memory::desc({p.k, p.n}, memory::data_type::f32, tag::any) : i.b_plain_md;
  dnnl::primitive_attr attr = builtin::detail::user_scratchpad();
  if (p.act != Activation::none) {
    dnnl::post_ops ops;
    auto algorithm = [&] {
      switch (p.act) {
        case Activation::relu: return dnnl::algorithm::eltwise_relu;
        case Activation::sigmoid: return dnnl::algorithm::eltwise_logistic;
        case Activation::tanh: return dnnl::algorithm::eltwise_tanh;
        case Activation::gelu: return dnnl::algorithm::eltwise_gelu_erf;  // Gelu is the exact (erf) form
        case Activation::none: break;
      }
      throw Error(p.to_string() + ": no oneDNN post-op for this activation");
    };
    ops.append_eltwise(1.f, algorithm(), 0.f, 0.f);
    attr.set_post_ops(ops);
  }
  try {
    builtin::detail::ThreadScope threads(static_cast<int>(c.threads));  // oneDNN's OpenMP build sizes the primitive now
    dnnl::matmul::desc desc = p.has_bias ? dnnl::matmul::desc(i.a_md, b_want, i.bias_md, i.c_md) : dnnl::matmul::desc(i.a_md, b_want, i.c_md);
    dnnl::matmul::primitive_desc pd(desc, attr, eng);
    i.prim = dnnl::matmul(pd);
    i.b_md = pd.weights_desc();
    i.scratch_md = pd.scratchpad_desc();
    i.scratchpad.resize(i.scratch_md.get_size());
    i.stream = dnnl::stream(eng);
    if (c.blocked_weights) {
      i.blocked_b.resize((i.b_md.get_size() + sizeof(float) - 1) / sizeof(float));
      dnnl::memory from(i.b_plain_md, eng, const_cast<float*>(b)), to(i.b_md, eng, i.blocked_b.data());
      dnnl::reorder(from, to).execute(i.stream, from, to);
      i.stream.wait();
    }
  } catch (dnnl::error const& e) {
    throw Error(problem_error(p, std::string("oneDNN has no matmul for it (") + e.what() + ")"));
  }
}

MatmulEpiloguePlan::~MatmulEpiloguePlan() = default;
MatmulEpiloguePlan::MatmulEpiloguePlan(MatmulEpiloguePlan&&) noexcept = default;
MatmulEpiloguePlan& MatmulEpiloguePlan::operator=(MatmulEpiloguePlan&&) noexcept = default;

void MatmulEpiloguePlan::run(float const* a, float const* b, float const* bias, float* c) const {
  MatmulEpilogueProblem const& p = impl_->p;
  if (!a || !c || (!b && !(impl_->c.engine == MatmulEngine::onednn && impl_->c.blocked_weights)))
    throw Error(problem_error(p, "a null a, b or c pointer"));
  if ((bias != nullptr) != p.has_bias) throw Error(problem_error(p, p.has_bias ? "the bias pointer is null" : "a bias pointer without has_bias"));
  if (impl_->c.engine == MatmulEngine::own) impl_->run_own(a, b, bias, c);
  else impl_->run_onednn(a, b, bias, c);
}

}  // namespace autograph::cpu::tuned
