// BatchNorm, LayerNorm, Softmax, Pool2D and Reduce on the CPU runtime against the reference kernels.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

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
        expect_matches(pool(kind, {1, 1}, {2, 2}, {0, 0, 0, 0}, include_pad, ceil), {x});  // our strided copy
        expect_matches(pool(kind, {1, 1}, {2, 3}, {0, 0, 0, 0}, include_pad, ceil), {x});
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

}  // namespace
}  // namespace autograph::cpu
