// onednn_conv_layout: oneDNN's convolutions on channels-last tensors (the layout the CPU
// runtime keeps between kernels) against the same problems in the layout oneDNN picks itself
// (format `any`: nChw8c on AVX2, nChw16c on AVX-512), timed interleaved, medians.
//
//   onednn_conv_layout [runs]
//
// Why (issue 14): on the Zen 3 VM (AVX2) Inception-v3's convolutions take 1.3-1.4x
// onnxruntime's, whose kernels keep an 8-channel blocked layout from the first convolution to
// the last, and oneDNN's log showed a third of ours running directly on channels-last tensors.
// If the blocked layout were much faster, keeping it between kernels would close the gap; this
// measures whether it is, on Inception-v3's heaviest problems (from that log), one thread per
// core as the runtime gives a lone kernel.
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {
using namespace dnnl;
using Clock = std::chrono::steady_clock;

struct Problem {
  memory::dim ic, oc, ih, iw, kh, kw, stride, ph, pw;
};

struct Timed {
  convolution_forward conv;
  memory src, weights, dst;
  std::string impl;
  std::vector<double> ms;
  double run(stream& s) {
    auto t = Clock::now();
    conv.execute(s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    s.wait();
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  }
  double median() {
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

Timed make(engine const& eng, Problem const& p, memory::format_tag layout) {
  memory::dim oh = (p.ih + 2 * p.ph - p.kh) / p.stride + 1, ow = (p.iw + 2 * p.pw - p.kw) / p.stride + 1;
  auto f32 = memory::data_type::f32;
  memory::desc src({1, p.ic, p.ih, p.iw}, f32, layout), dst({1, p.oc, oh, ow}, f32, layout);
  memory::desc weights({p.oc, p.ic, p.kh, p.kw}, f32, memory::format_tag::any);
  convolution_forward::primitive_desc pd(
      convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct, src, weights, dst, {p.stride, p.stride}, {p.ph, p.pw}, {p.ph, p.pw}),
      eng);
  return {convolution_forward(pd), memory(pd.src_desc(), eng), memory(pd.weights_desc(), eng), memory(pd.dst_desc(), eng), pd.impl_info_str(), {}};
}
}  // namespace

int main(int argc, char** argv) {
  int const runs = argc > 1 ? std::atoi(argv[1]) : 40;
  if (runs < 1) {
    std::fprintf(stderr, "onednn_conv_layout: runs must be a whole number >= 1, got '%s'\n", argv[1]);
    return 2;
  }
  // Inception-v3's heaviest convolution problems at 299 px (ONEDNN_VERBOSE of our run, 2026-11-29).
  std::vector<Problem> const problems = {{80, 192, 73, 73, 3, 3, 1, 0, 0},   {32, 64, 147, 147, 3, 3, 1, 1, 1}, {288, 384, 35, 35, 3, 3, 2, 0, 0},
                                         {32, 32, 149, 149, 3, 3, 1, 0, 0},  {96, 96, 35, 35, 3, 3, 1, 1, 1},   {48, 64, 35, 35, 5, 5, 1, 2, 2},
                                         {160, 192, 17, 17, 1, 7, 1, 0, 3},  {160, 160, 17, 17, 7, 1, 1, 3, 0}, {384, 384, 8, 8, 3, 1, 1, 1, 0},
                                         {128, 128, 17, 17, 1, 7, 1, 0, 3},  {288, 64, 35, 35, 1, 1, 1, 0, 0},  {768, 192, 17, 17, 1, 1, 1, 0, 0}};
  dnnl_version_t const* v = dnnl_version();
  std::printf("oneDNN %d.%d.%d, medians of %d interleaved runs after 3 warm-up runs\n", v->major, v->minor, v->patch, runs);
  try {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    double sum_nhwc = 0, sum_any = 0;
    for (auto const& p : problems) {
      Timed nhwc = make(eng, p, memory::format_tag::nhwc), any = make(eng, p, memory::format_tag::any);
      for (int r = 0; r < runs + 3; ++r) {
        double a = nhwc.run(s), b = any.run(s);
        if (r >= 3) nhwc.ms.push_back(a), any.ms.push_back(b);
      }
      double a = nhwc.median(), b = any.median();
      sum_nhwc += a;
      sum_any += b;
      std::printf("ic%-4lld oc%-4lld %3lldx%-3lld k%lldx%lld s%lld: channels-last %7.3f ms (%s), oneDNN's layout %7.3f ms (%s): %.2fx\n",
                  static_cast<long long>(p.ic), static_cast<long long>(p.oc), static_cast<long long>(p.ih), static_cast<long long>(p.iw),
                  static_cast<long long>(p.kh), static_cast<long long>(p.kw), static_cast<long long>(p.stride), a, nhwc.impl.c_str(), b,
                  any.impl.c_str(), a / b);
    }
    std::printf("sum: channels-last %.2f ms, oneDNN's layout %.2f ms: %.2fx\n", sum_nhwc, sum_any, sum_nhwc / sum_any);
  } catch (dnnl::error const& e) {
    std::fprintf(stderr, "onednn_conv_layout: %s\n", e.what());
    return 1;
  }
}
