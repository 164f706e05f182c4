// The CPU runtime's kernels of the built-in operators (autograph/cpu/ops.hpp) against the
// reference kernels: each case prepares a node by hand, binds it to buffers of its own,
// runs it, and compares with reference::evaluate (normwise, 1e-4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "autograph/cpu/ops.hpp"
#include "autograph/runtime/compare_outputs.hpp"
#include "autograph/runtime/cpu/kernels.hpp"

namespace autograph::cpu {
namespace {

/// A prepared, bound node over buffers it owns, as the runtime would lay them out.
struct Prepared {
  Preparation prep;
  std::vector<std::vector<float>> in, out;
  std::vector<std::vector<float>> workspace;
  std::vector<Runner> runners;

  void run() {
    for (Runner const& r : runners) r();
  }
  std::vector<Tensor> outputs() const {
    std::vector<Tensor> t;
    for (std::size_t o = 0; o < out.size(); ++o) t.emplace_back(prep.outputs()[o].shape, out[o]);
    return t;
  }
};

std::vector<TensorDesc> descs_of(std::vector<Tensor> const& in) {
  std::vector<TensorDesc> d;
  for (Tensor const& t : in) d.push_back({t.shape()});
  return d;
}

/// prepare -> bind: outputs start as NaN so that an element no step writes shows.
template <class Op>
std::unique_ptr<Prepared> prepare(Op const& op, std::vector<Tensor> const& in, std::vector<char> constant = {}, int threads = 1) {
  auto d = descs_of(in);
  auto r = std::unique_ptr<Prepared>(new Prepared{Preparation("test " + std::string(Op::name), d, op.infer(d), constant, threads), {}, {}, {}, {}});
  Kernel<Op>::prepare(op, r->prep);
  for (Tensor const& t : in) r->in.emplace_back(t.data().begin(), t.data().end());
  for (TensorDesc const& o : r->prep.outputs()) r->out.emplace_back(static_cast<std::size_t>(o.numel()), std::numeric_limits<float>::quiet_NaN());
  for (std::size_t bytes : r->prep.workspaces()) r->workspace.emplace_back((bytes + sizeof(float) - 1) / sizeof(float));
  std::vector<float const*> ip;
  std::vector<float*> op_;
  std::vector<void*> wp;
  for (auto const& b : r->in) ip.push_back(b.empty() ? nullptr : b.data());
  for (auto& b : r->out) op_.push_back(b.empty() ? nullptr : b.data());
  for (auto& b : r->workspace) wp.push_back(b.data());
  Io io{ip, op_, wp};
  for (auto const& step : r->prep.steps()) r->runners.push_back(step.bind(io));
  return r;
}

/// The kernel's outputs equal the reference's (normwise 1e-4, the floor from the magnitudes
/// the node read and wrote) with 1 and 2 threads, and a second run gives the same bits.
template <class Op>
void expect_matches(Op const& op, std::vector<Tensor> const& in, std::vector<char> constant = {}) {
  auto d = descs_of(in);
  auto out = op.infer(d);
  std::vector<Tensor> expected = reference::evaluate(op, std::span<Tensor const>(in), std::span<TensorDesc const>(out));
  double magnitude = 0;
  for (Tensor const& t : in) magnitude = std::max(magnitude, max_finite_magnitude(t));
  for (Tensor const& t : expected) magnitude = std::max(magnitude, max_finite_magnitude(t));
  for (int threads : {1, 2}) {
    auto node = prepare(op, in, constant, threads);
    node->run();
    auto first = node->outputs();
    ASSERT_EQ(first.size(), expected.size());
    for (std::size_t o = 0; o < expected.size(); ++o) {
      auto c = compare_output(expected[o], first[o], 1e-4, noise_floor(magnitude), o);
      EXPECT_TRUE(c.passed) << Op::name << " " << threads << " threads: " << c.why;
    }
    node->run();
    auto second = node->outputs();
    for (std::size_t o = 0; o < expected.size(); ++o)
      EXPECT_TRUE(std::equal(first[o].data().begin(), first[o].data().end(), second[o].data().begin(), second[o].data().end(),
                             [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }))
          << Op::name << ": a second run changed output " << o;
  }
}

Tensor rnd(Shape s, std::uint64_t seed, float lo = -1.f, float hi = 1.f) { return Tensor::random(s, seed, lo, hi); }

// ---- Conv2D ---------------------------------------------------------------------------------

Conv2D conv(std::array<std::int64_t, 2> stride, std::array<std::int64_t, 4> pad, std::int64_t groups = 1,
            std::array<std::int64_t, 2> dilation = {1, 1}, Activation act = Activation::none) {
  return Conv2D{.stride = stride, .pad = pad, .dilation = dilation, .groups = groups, .act = act};
}

TEST(CpuConv2D, PlainWithBiasConstantAndComputedWeights) {
  std::vector<Tensor> in{rnd({2, 8, 9, 9}, 1), rnd({16, 8, 3, 3}, 2), rnd({16}, 3)};
  expect_matches(conv({1, 1}, {1, 1, 1, 1}), in, {0, 1, 1});
  expect_matches(conv({1, 1}, {1, 1, 1, 1}), in, {0, 0, 0});
}
TEST(CpuConv2D, StridedAsymmetricPaddingNoBias) {
  expect_matches(conv({2, 2}, {0, 1, 2, 0}), {rnd({1, 3, 11, 10}, 4), rnd({5, 3, 3, 2}, 5)}, {0, 1});
}
TEST(CpuConv2D, PointwiseAndLargeKernel) {
  expect_matches(conv({1, 1}, {0, 0, 0, 0}), {rnd({1, 32, 7, 7}, 6), rnd({24, 32, 1, 1}, 7)}, {0, 1});
  expect_matches(conv({1, 1}, {3, 0, 3, 0}), {rnd({1, 4, 9, 8}, 6), rnd({4, 4, 7, 1}, 7)}, {0, 1});
}
TEST(CpuConv2D, Grouped) {
  expect_matches(conv({1, 1}, {1, 1, 1, 1}, 4), {rnd({1, 16, 8, 8}, 8), rnd({8, 4, 3, 3}, 9), rnd({8}, 10)}, {0, 1, 1});
  expect_matches(conv({1, 1}, {1, 1, 1, 1}, 4), {rnd({1, 16, 8, 8}, 8), rnd({8, 4, 3, 3}, 9), rnd({8}, 10)});
}
TEST(CpuConv2D, Depthwise) {
  expect_matches(conv({1, 1}, {1, 1, 1, 1}, 32), {rnd({2, 32, 10, 10}, 11), rnd({32, 1, 3, 3}, 12)}, {0, 1});
  expect_matches(conv({2, 2}, {2, 2, 2, 2}, 16), {rnd({1, 16, 13, 13}, 11), rnd({16, 1, 5, 5}, 12), rnd({16}, 13)}, {0, 1, 1});
}
TEST(CpuConv2D, Dilated) {
  expect_matches(conv({1, 1}, {2, 2, 2, 2}, 1, {2, 2}), {rnd({1, 6, 12, 12}, 14), rnd({6, 6, 3, 3}, 15)}, {0, 1});
  expect_matches(conv({1, 1}, {4, 2, 4, 2}, 8, {4, 2}), {rnd({1, 8, 12, 12}, 14), rnd({8, 1, 3, 3}, 15)}, {0, 1});
}
TEST(CpuConv2D, FusedActivations) {
  for (Activation act : {Activation::relu, Activation::sigmoid, Activation::tanh}) {
    expect_matches(conv({1, 1}, {1, 1, 1, 1}, 1, {1, 1}, act), {rnd({1, 8, 6, 6}, 16), rnd({8, 8, 3, 3}, 17), rnd({8}, 18)}, {0, 1, 1});
    expect_matches(conv({2, 2}, {1, 1, 1, 1}, 8, {1, 1}, act), {rnd({1, 8, 6, 6}, 16), rnd({8, 1, 3, 3}, 17), rnd({8}, 18)}, {0, 1, 1});
  }
}

// ---- ConvTranspose2D ------------------------------------------------------------------------

TEST(CpuConvTranspose2D, StridedPaddedGroupedWithOutputPadding) {
  expect_matches(ConvTranspose2D{.stride = {2, 2}}, {rnd({1, 4, 5, 5}, 19), rnd({4, 6, 3, 3}, 20), rnd({6}, 21)}, {0, 1, 1});
  expect_matches(ConvTranspose2D{.stride = {2, 2}, .pad = {1, 1, 1, 1}, .output_padding = {1, 1}}, {rnd({2, 4, 5, 4}, 22), rnd({4, 3, 3, 3}, 23)});
  // Output padding beyond the end padding: oneDNN sees negative end padding.
  expect_matches(ConvTranspose2D{.stride = {3, 2}, .output_padding = {2, 1}}, {rnd({1, 3, 4, 5}, 22), rnd({3, 2, 2, 3}, 23), rnd({2}, 24)});
  expect_matches(ConvTranspose2D{.stride = {1, 2}, .pad = {0, 1, 1, 0}, .dilation = {2, 1}, .groups = 2},
                 {rnd({1, 4, 6, 5}, 24), rnd({4, 3, 3, 2}, 25), rnd({6}, 26)}, {0, 1, 1});
}

// ---- MatMul ---------------------------------------------------------------------------------

TEST(CpuMatMul, PlainBatchedAndBroadcast) {
  expect_matches(MatMul{}, {rnd({7, 12}, 27), rnd({12, 5}, 28)}, {0, 1});
  expect_matches(MatMul{}, {rnd({7, 12}, 27), rnd({12, 5}, 28)});
  expect_matches(MatMul{}, {rnd({3, 4, 7, 12}, 29), rnd({12, 5}, 30)}, {0, 1});     // a linear layer over a batch
  expect_matches(MatMul{}, {rnd({2, 3, 7, 12}, 31), rnd({2, 3, 12, 5}, 32)});       // batched
  expect_matches(MatMul{}, {rnd({2, 1, 7, 12}, 33), rnd({3, 12, 5}, 34)});          // both broadcast
  expect_matches(MatMul{}, {rnd({7, 12}, 35), rnd({4, 12, 5}, 36)});                // a broadcast
}
TEST(CpuMatMul, FusedActivations) {
  for (Activation act : {Activation::relu, Activation::sigmoid, Activation::tanh})
    expect_matches(MatMul{.act = act}, {rnd({2, 6, 9}, 37), rnd({9, 4}, 38)}, {0, 1});
}

// ---- elementwise ----------------------------------------------------------------------------

template <class Op>
void expect_binary_matches(float lo = -1.f, float hi = 1.f) {
  auto two = [&](Shape a, Shape b, std::uint64_t seed) { expect_matches(Op{}, {rnd(a, seed, lo, hi), rnd(b, seed + 1, lo, hi)}); };
  two({2, 3, 4, 5}, {2, 3, 4, 5}, 40);  // same shapes
  two({2, 3, 4, 5}, {3, 1, 5}, 42);     // b broadcast
  two({5}, {2, 3, 4, 5}, 44);           // a broadcast
  two({2, 1, 4, 1}, {1, 3, 1, 5}, 46);  // both broadcast
  two({2, 3}, {}, 48);                  // a scalar
  two({}, {}, 50);
}
TEST(CpuBinary, Add) { expect_binary_matches<Add>(); }
TEST(CpuBinary, Sub) { expect_binary_matches<Sub>(); }
TEST(CpuBinary, Mul) { expect_binary_matches<Mul>(); }
TEST(CpuBinary, Div) { expect_binary_matches<Div>(0.5f, 2.f); }
TEST(CpuBinary, Pow) { expect_binary_matches<Pow>(0.5f, 2.f); }
TEST(CpuBinary, Max) { expect_binary_matches<Max>(); }
TEST(CpuBinary, Min) { expect_binary_matches<Min>(); }

template <class Op>
void expect_unary_matches(Op const& op, float lo = -4.f, float hi = 4.f) {
  expect_matches(op, {rnd({2, 3, 17, 5}, 52, lo, hi)});
  expect_matches(op, {rnd({}, 53, lo, hi)});
}
TEST(CpuUnary, EveryKind) {
  expect_unary_matches(Relu{});
  expect_unary_matches(Sigmoid{});
  expect_unary_matches(Tanh{});
  expect_unary_matches(Gelu{});
  expect_unary_matches(Exp{});
  expect_unary_matches(Log{}, 0.01f, 10.f);
  expect_unary_matches(Sqrt{}, 0.f, 10.f);
  expect_unary_matches(Erf{});
  expect_unary_matches(Neg{});
  expect_unary_matches(Abs{});
  expect_unary_matches(Reciprocal{}, 0.25f, 4.f);
  expect_unary_matches(Reciprocal{}, -4.f, -0.25f);
  expect_unary_matches(LeakyRelu{});
  expect_unary_matches(LeakyRelu{.alpha = 0.3f});
  expect_unary_matches(Clip{});
  expect_unary_matches(Clip{.alpha = -1.f, .beta = 2.5f});
  expect_unary_matches(HardSigmoid{});
  expect_unary_matches(HardSigmoid{.alpha = 0.1666667f, .beta = 0.4f});
  expect_unary_matches(HardSwish{});
  expect_unary_matches(Scale{.scale = -2.5f, .shift = 0.75f});
}
TEST(CpuUnary, IdentityAndReshapeCopy) {
  expect_matches(Identity{}, {rnd({3, 4, 5}, 54)});
  expect_matches(Reshape{.shape = {4, -1}}, {rnd({3, 4, 5}, 55)});
}

// ---- normalisation, pooling, reduction ------------------------------------------------------

TEST(CpuBatchNorm, ImagesAndVectors) {
  auto stats = [](std::int64_t c, std::uint64_t seed) {
    return std::vector<Tensor>{rnd({c}, seed), rnd({c}, seed + 1), rnd({c}, seed + 2, -3.f, 3.f), rnd({c}, seed + 3, 0.1f, 2.f)};
  };
  auto with = [](Tensor x, std::vector<Tensor> s) {
    s.insert(s.begin(), std::move(x));
    return s;
  };
  expect_matches(BatchNorm{}, with(rnd({2, 6, 5, 7}, 60, -4.f, 4.f), stats(6, 61)), {0, 1, 1, 1, 1});
  expect_matches(BatchNorm{.epsilon = 1e-3f}, with(rnd({3, 5}, 62), stats(5, 63)));
  expect_matches(BatchNorm{}, with(rnd({1, 4, 2, 3, 2}, 64), stats(4, 65)));
}
TEST(CpuLayerNorm, LastAxisAndSeveralAxes) {
  expect_matches(LayerNorm{}, {rnd({2, 7, 16}, 66, -3.f, 5.f), rnd({16}, 67), rnd({16}, 68)});
  expect_matches(LayerNorm{.axis = 1, .epsilon = 1e-3f}, {rnd({3, 4, 5}, 69), rnd({4, 5}, 70), rnd({4, 5}, 71)});
  expect_matches(LayerNorm{.axis = 0}, {rnd({6, 5}, 72), rnd({6, 5}, 73), rnd({6, 5}, 74)});
}
TEST(CpuSoftmax, EveryAxis) {
  Tensor x = rnd({2, 3, 4, 5}, 75, -6.f, 6.f);
  for (std::int64_t axis : {-1, 0, 1, 2, 3}) expect_matches(Softmax{.axis = axis}, {x});
  expect_matches(Softmax{}, {rnd({1000}, 76, -20.f, 20.f)});
}

Pool2D pool(PoolKind kind, std::array<std::int64_t, 2> k, std::array<std::int64_t, 2> s, std::array<std::int64_t, 4> pad,
            bool include_pad = false, bool ceil = false) {
  return Pool2D{.kind = kind, .kernel = k, .stride = s, .pad = pad, .global = false, .count_include_pad = include_pad, .ceil_mode = ceil};
}
TEST(CpuPool2D, MaxAndAverageModes) {
  Tensor x = rnd({2, 3, 11, 10}, 77);
  for (PoolKind kind : {PoolKind::max, PoolKind::avg})
    for (bool include_pad : {false, true})
      for (bool ceil : {false, true}) {
        SCOPED_TRACE(std::string(kind == PoolKind::max ? "max" : "avg") + (include_pad ? " include_pad" : "") + (ceil ? " ceil" : ""));
        expect_matches(pool(kind, {3, 3}, {2, 2}, {1, 1, 1, 1}, include_pad, ceil), {x});
        expect_matches(pool(kind, {2, 3}, {2, 3}, {0, 1, 1, 0}, include_pad, ceil), {x});
        expect_matches(pool(kind, {3, 3}, {1, 1}, {1, 1, 1, 1}, include_pad, ceil), {x});
      }
}
TEST(CpuPool2D, Global) {
  expect_matches(Pool2D{.kind = PoolKind::avg, .global = true}, {rnd({2, 8, 7, 7}, 78)});
  expect_matches(Pool2D{.kind = PoolKind::max, .global = true}, {rnd({2, 8, 7, 7}, 79)});
}

TEST(CpuReduce, KindsAxesKeepdims) {
  Tensor x = rnd({2, 3, 4, 5}, 80);
  for (ReduceKind kind : {ReduceKind::mean, ReduceKind::sum})
    for (bool keep : {true, false}) {
      expect_matches(Reduce{.kind = kind, .axes = {}, .keepdims = keep}, {x});
      expect_matches(Reduce{.kind = kind, .axes = {-1}, .keepdims = keep}, {x});
      expect_matches(Reduce{.kind = kind, .axes = {2, 3}, .keepdims = keep}, {x});
      expect_matches(Reduce{.kind = kind, .axes = {0, 2}, .keepdims = keep}, {x});
      expect_matches(Reduce{.kind = kind, .axes = {1}, .keepdims = keep}, {rnd({4, 1, 3}, 81)});  // a size-1 axis: a copy
      expect_matches(Reduce{.kind = kind, .axes = {1}, .keepdims = keep}, {rnd({4, 0, 3}, 82)});  // an empty axis
    }
}

// ---- data movement --------------------------------------------------------------------------

TEST(CpuConcat, EveryAxisAndEmptyInputs) {
  expect_matches(Concat{.axis = 1}, {rnd({2, 3, 4, 5}, 90), rnd({2, 6, 4, 5}, 91), rnd({2, 1, 4, 5}, 92)});
  expect_matches(Concat{.axis = 0}, {rnd({2, 3, 4}, 93), rnd({1, 3, 4}, 94)});
  expect_matches(Concat{.axis = -1}, {rnd({2, 3, 4}, 95), rnd({2, 3, 7}, 96)});
  expect_matches(Concat{.axis = 2}, {rnd({2, 3, 4}, 97), rnd({2, 3, 0}, 98), rnd({2, 3, 2}, 99)});
  expect_matches(Concat{.axis = 1}, {rnd({2, 0}, 100), rnd({2, 3}, 101)});
}
TEST(CpuSplit, AlongEachAxis) {
  expect_matches(Split{.axis = 1, .sizes = {2, 3, 1}}, {rnd({2, 6, 4}, 102)});
  expect_matches(Split{.axis = 0, .sizes = {1, 3}}, {rnd({4, 5}, 103)});
  expect_matches(Split{.axis = -1, .sizes = {4, 0, 3}}, {rnd({2, 3, 7}, 104)});
}
TEST(CpuTranspose, Permutations) {
  Tensor x = rnd({2, 3, 4, 5}, 105);
  for (std::vector<std::int64_t> perm : {std::vector<std::int64_t>{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {3, 2, 1, 0}, {1, 0, 2, 3}})
    expect_matches(Transpose{.perm = perm}, {x});
  expect_matches(Transpose{.perm = {1, 0}}, {rnd({7, 9}, 106)});
  expect_matches(Transpose{.perm = {4, 0, 5, 1, 2, 3, 7, 6}}, {rnd({2, 1, 3, 2, 1, 2, 3, 2}, 107)});
}
TEST(CpuSlice, StartsEndsSteps) {
  Tensor x = rnd({4, 6, 8}, 108);
  expect_matches(Slice{.axes = {1}, .starts = {1}, .ends = {5}}, {x});
  expect_matches(Slice{.axes = {0, 2}, .starts = {1, -6}, .ends = {100, -1}, .steps = {2, 3}}, {x});
  expect_matches(Slice{.axes = {2, 1}, .starts = {0, 2}, .ends = {8, 6}, .steps = {2, 1}}, {x});
  expect_matches(Slice{.axes = {1}, .starts = {4}, .ends = {2}}, {x});  // empty
}
TEST(CpuPad, ConstantPadding) {
  expect_matches(Pad{.pads = {0, 1, 2, 0, 0, 3, 1, 0}}, {rnd({2, 3, 4, 5}, 109)});
  expect_matches(Pad{.pads = {1, 2, 3, 0}, .value = -1.5f}, {rnd({3, 4}, 110)});
  expect_matches(Pad{.pads = {0, 0, 0, 0}}, {rnd({3, 4}, 111)});
}
TEST(CpuEnlarge, CentresTheKernel) {
  expect_matches(Enlarge{.kernel = {5, 5}}, {rnd({4, 3, 1, 3}, 112)});
  expect_matches(Enlarge{.kernel = {3, 3}}, {rnd({4, 3, 3, 3}, 113)});
}

Resize resize(std::vector<std::int64_t> sizes, ResizeMode mode, ResizeCoordinate coordinate) {
  return Resize{.sizes = std::move(sizes), .mode = mode, .coordinate = coordinate};
}
TEST(CpuResize, ModesAndCoordinates) {
  Tensor x = rnd({1, 2, 5, 6}, 114);
  for (ResizeMode mode : {ResizeMode::nearest, ResizeMode::linear, ResizeMode::cubic})
    for (ResizeCoordinate c : {ResizeCoordinate::half_pixel, ResizeCoordinate::pytorch_half_pixel, ResizeCoordinate::align_corners,
                               ResizeCoordinate::asymmetric, ResizeCoordinate::tf_half_pixel_for_nn}) {
      expect_matches(resize({1, 2, 10, 12}, mode, c), {x});
      expect_matches(resize({1, 2, 3, 4}, mode, c), {x});
      expect_matches(resize({2, 3, 7, 6}, mode, c), {x});  // every axis, the last one unchanged
    }
  Resize crop = resize({1, 2, 4, 4}, ResizeMode::linear, ResizeCoordinate::tf_crop_and_resize);
  crop.roi = {0, 0, 0.2, -0.1, 1, 1, 0.9, 1.2};
  crop.extrapolation_value = 7.f;
  expect_matches(crop, {x});
  Resize cubic = resize({1, 2, 9, 9}, ResizeMode::cubic, ResizeCoordinate::half_pixel);
  cubic.exclude_outside = true;
  cubic.cubic_coeff_a = -0.5f;
  expect_matches(cubic, {x});
  expect_matches(resize({1, 2, 5, 6}, ResizeMode::linear, ResizeCoordinate::half_pixel), {x});  // nothing changes: a copy
}

// ---- which kernels run, and what is rejected --------------------------------------------------

std::vector<std::string> steps_of(auto const& op, std::vector<Tensor> const& in, std::vector<char> constant = {}) {
  auto node = prepare(op, in, constant);
  std::vector<std::string> names;
  for (auto const& s : node->prep.steps()) names.push_back(s.what);
  return names;
}

bool has_step(std::vector<std::string> const& steps, std::string const& what) {
  return std::ranges::any_of(steps, [&](std::string const& s) { return s.find(what) != std::string::npos; });
}

TEST(CpuKernels, OneDnnWhereItHasTheOpOwnLoopsElsewhere) {
  auto dense = steps_of(conv({1, 1}, {1, 1, 1, 1}), {rnd({1, 16, 8, 8}, 1), rnd({16, 16, 3, 3}, 2), rnd({16}, 3)}, {0, 1, 1});
  EXPECT_EQ(dense.size(), 1u);  // bias and activation in the same primitive; a constant weight reordered at bind time
  EXPECT_TRUE(has_step(dense, "oneDNN convolution"));
  auto depthwise = steps_of(conv({1, 1}, {1, 1, 1, 1}, 16), {rnd({1, 16, 8, 8}, 1), rnd({16, 1, 3, 3}, 2)}, {0, 1});
  EXPECT_TRUE(has_step(depthwise, "oneDNN convolution"));
  auto computed = steps_of(MatMul{}, {rnd({8, 16}, 1), rnd({16, 8}, 2)}, {0, 0});
  EXPECT_TRUE(has_step(computed, "oneDNN matmul"));
  EXPECT_TRUE(has_step(steps_of(Add{}, {rnd({2, 8}, 1), rnd({8}, 2)}), "oneDNN binary"));
  EXPECT_TRUE(has_step(steps_of(Add{}, {rnd({8}, 1), rnd({2, 8}, 2)}), "oneDNN binary"));  // swapped: Add commutes
  EXPECT_TRUE(has_step(steps_of(Sub{}, {rnd({8}, 1), rnd({2, 8}, 2)}), "own loop"));
  EXPECT_TRUE(has_step(steps_of(Pow{}, {rnd({2, 8}, 1), rnd({2, 8}, 2)}), "own loop"));
  EXPECT_TRUE(has_step(steps_of(Erf{}, {rnd({2, 8}, 1)}), "own loop"));
  EXPECT_TRUE(has_step(steps_of(HardSwish{}, {rnd({2, 8}, 1)}), "oneDNN eltwise"));
  EXPECT_TRUE(has_step(steps_of(Transpose{.perm = {1, 0}}, {rnd({3, 4}, 1)}), "oneDNN reorder"));
  EXPECT_TRUE(has_step(steps_of(Softmax{}, {rnd({3, 4}, 1)}), "oneDNN softmax"));
  EXPECT_TRUE(has_step(steps_of(LayerNorm{}, {rnd({3, 4}, 1), rnd({4}, 2), rnd({4}, 3)}), "oneDNN layer normalization"));
  EXPECT_TRUE(has_step(steps_of(Reduce{.axes = {1}}, {rnd({3, 4}, 1)}), "oneDNN reduction"));
  EXPECT_TRUE(has_step(steps_of(Concat{.axis = 0}, {rnd({3, 4}, 1), rnd({3, 4}, 1)}), "oneDNN concat"));
}

TEST(CpuKernels, EmptyInputs) {
  expect_matches(MatMul{.act = Activation::sigmoid}, {rnd({3, 0}, 1), rnd({0, 4}, 2)});  // act(0) everywhere
  expect_matches(Add{}, {rnd({0, 4}, 1), rnd({4}, 2)});                                   // nothing to compute
}

TEST(CpuKernels, RejectsWhatItCannotRunInPrepare) {
  // oneDNN makes no convolution over zero input channels; the error names the node and the shape.
  Conv2D op{};
  std::vector<TensorDesc> in{{Shape{1, 0, 4, 4}}, {Shape{2, 0, 3, 3}}};
  Preparation p("Conv2D 'empty'", in, op.infer(in), {}, 1);
  try {
    Kernel<Conv2D>::prepare(op, p);
    FAIL() << "prepare accepted a convolution over zero channels";
  } catch (ExecutionError const& e) {
    EXPECT_NE(std::string(e.what()).find("Conv2D 'empty': unsupported on the CPU runtime"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(Shape{1, 0, 4, 4}.to_string()), std::string::npos) << e.what();
  }
  EXPECT_TRUE(p.steps().empty());
}

}  // namespace
}  // namespace autograph::cpu
