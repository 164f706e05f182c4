// Cross-checks the im2col + GEMM convolution against the definition, computed one output
// at a time, on chosen and random shapes (groups, dilation, stride, asymmetric padding).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "autograph/runtime/cpu/conv2d.hpp"
#include "kernel_testing.hpp"

namespace autograph {
namespace {

using testing::run1;

struct ConvCase {
  std::int64_t n, c, h, w, k, r, s;
  Conv2D op;
  bool bias;
};

/// The definition, one output at a time: y[n,k,oh,ow] = act(b[k] + sum over the group's
/// channels c, and r, s, of x[n,c,oh*sh - pt + r*dh, ow*sw - pl + s*dw] * w[k,c',r,s]).
Tensor direct_conv(Tensor const& x, Tensor const& w, Tensor const* b, Conv2D const& op, Shape const& ys) {
  auto const& xs = x.shape();
  auto const& ws = w.shape();
  std::int64_t cg = ws[1], kg = ws[0] / op.groups;
  Tensor y(ys);
  for (std::int64_t n = 0; n < ys[0]; ++n)
    for (std::int64_t k = 0; k < ys[1]; ++k)
      for (std::int64_t oh = 0; oh < ys[2]; ++oh)
        for (std::int64_t ow = 0; ow < ys[3]; ++ow) {
          double acc = b ? b->data()[static_cast<std::size_t>(k)] : 0.0;
          for (std::int64_t ci = 0; ci < cg; ++ci)
            for (std::int64_t r = 0; r < ws[2]; ++r)
              for (std::int64_t s = 0; s < ws[3]; ++s) {
                std::int64_t ih = oh * op.stride[0] - op.pad[0] + r * op.dilation[0];
                std::int64_t iw = ow * op.stride[1] - op.pad[1] + s * op.dilation[1];
                if (ih < 0 || ih >= xs[2] || iw < 0 || iw >= xs[3]) continue;
                std::int64_t c = (k / kg) * cg + ci;
                acc += static_cast<double>(x.data()[static_cast<std::size_t>(((n * xs[1] + c) * xs[2] + ih) * xs[3] + iw)]) *
                       w.data()[static_cast<std::size_t>(((k * cg + ci) * ws[2] + r) * ws[3] + s)];
              }
          y.mutable_data()[static_cast<std::size_t>(((n * ys[1] + k) * ys[2] + oh) * ys[3] + ow)] = apply(op.act, static_cast<float>(acc));
        }
  return y;
}

void expect_matches_direct(ConvCase const& cc, std::uint64_t seed) {
  Tensor x = Tensor::random({cc.n, cc.c, cc.h, cc.w}, seed);
  Tensor w = Tensor::random({cc.k, cc.c / cc.op.groups, cc.r, cc.s}, seed + 1);
  Tensor b = Tensor::random({cc.k}, seed + 2);
  std::vector<Tensor> in = {x, w};
  if (cc.bias) in.push_back(b);
  Tensor y = run1(cc.op, in);
  Tensor want = direct_conv(x, w, cc.bias ? &b : nullptr, cc.op, y.shape());
  double worst = 0;
  for (std::size_t i = 0; i < want.data().size(); ++i) worst = std::max(worst, static_cast<double>(std::fabs(y.data()[i] - want.data()[i])));
  EXPECT_LT(worst, 1e-4) << "x " << x.shape().to_string() << " w " << w.shape().to_string() << " " << cc.op.attributes();
}

TEST(Conv2DKernel, MatchesDirectConvolutionOnChosenShapes) {
  ConvCase cases[] = {
      {2, 4, 7, 9, 6, 3, 3, {.pad = {1, 1, 1, 1}}, true},
      {1, 6, 10, 8, 4, 3, 2, {.stride = {2, 1}, .pad = {0, 1, 2, 0}, .dilation = {1, 2}, .groups = 2}, true},
      {1, 8, 9, 9, 8, 3, 3, {.stride = {2, 2}, .pad = {1, 1, 1, 1}, .groups = 8, .act = Activation::relu}, true},  // depthwise
      {1, 4, 9, 9, 8, 3, 3, {.pad = {1, 1, 1, 1}, .groups = 4}, false},  // depthwise, channel multiplier 2
      {3, 3, 5, 5, 3, 1, 1, {}, false},                                   // 1x1: no im2col
      {1, 6, 6, 7, 6, 1, 1, {.stride = {2, 2}, .pad = {0, 0, 1, 1}, .groups = 3}, true},
      {1, 3, 12, 12, 4, 5, 5, {.stride = {3, 2}, .pad = {2, 1, 0, 2}, .dilation = {2, 1}, .act = Activation::tanh}, true},
      {1, 2, 4, 4, 3, 4, 4, {.pad = {3, 3, 3, 3}, .act = Activation::sigmoid}, true},  // windows mostly in the padding
  };
  std::uint64_t seed = 10;
  for (auto const& cc : cases) expect_matches_direct(cc, seed += 3);
}

TEST(Conv2DKernel, MatchesDirectConvolutionOnRandomShapes) {
  std::mt19937_64 rng(2024);
  auto pick = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
  for (int i = 0; i < 30; ++i) {
    std::int64_t groups = pick(1, 3);
    ConvCase cc{pick(1, 2), groups * pick(1, 3), pick(1, 9), pick(1, 9), groups * pick(1, 3), pick(1, 4), pick(1, 4), {}, pick(0, 1) == 1};
    cc.op.groups = groups;
    cc.op.stride = {pick(1, 3), pick(1, 3)};
    cc.op.dilation = {pick(1, 2), pick(1, 2)};
    cc.op.act = static_cast<Activation>(pick(0, 3));
    for (auto& p : cc.op.pad) p = pick(0, 2);
    // Grow the image until the dilated kernel fits the padded input.
    while (cc.op.dilation[0] * (cc.r - 1) + 1 > cc.h + cc.op.pad[0] + cc.op.pad[2]) ++cc.h;
    while (cc.op.dilation[1] * (cc.s - 1) + 1 > cc.w + cc.op.pad[1] + cc.op.pad[3]) ++cc.w;
    expect_matches_direct(cc, 100 + static_cast<std::uint64_t>(i));
  }
}

}  // namespace
}  // namespace autograph
