// The output criterion: normwise per output, a float32 floor instead of 1.0, non-finite values
// compared by place, and floors from the magnitudes that flowed into each output.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/compare_outputs.hpp>
#include <gtest/gtest.h>

#include <cmath>

using namespace autograph;

TEST(CompareOutputs, SmallOutputsAreComparedRelatively) {
  // Probabilities near 1e-3 against zeros: an absolute 1e-3 test (the old floor of 1.0) passed.
  Tensor probs({4}, {1.1e-3f, 0.9e-3f, 1.0e-3f, 0.8e-3f}), zeros({4});
  auto c = compare_output(probs, zeros, 1e-3, noise_floor(1.0), 3, "Softmax 'probs'");
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.output, 3u);
  EXPECT_DOUBLE_EQ(c.error, 1.0);
  EXPECT_DOUBLE_EQ(c.tolerance, 1e-3);
  EXPECT_NE(c.why.find("output 3 (Softmax 'probs')"), std::string::npos) << c.why;
  EXPECT_NE(c.why.find("element 0"), std::string::npos) << c.why;
  // A relative error of 1e-4 passes.
  Tensor close({4}, {1.1e-3f * (1 + 1e-4f), 0.9e-3f, 1.0e-3f, 0.8e-3f});
  EXPECT_TRUE(compare_output(probs, close, 1e-3, noise_floor(1.0)).passed);
}

TEST(CompareOutputs, LargeOutputsAreComparedNormwise) {
  // NasNet-like: an element of 3e3 moved by 4.5 in an output whose scale is 1e7.
  Tensor a({3}, {1e7f, 3e3f, -2e6f}), b({3}, {1e7f, 3004.5f, -2e6f});
  auto c = compare_output(a, b, 1e-3, noise_floor(1e7));
  EXPECT_TRUE(c.passed) << c.why;
  EXPECT_NEAR(c.error, 4.5e-7, 1e-8);
}

TEST(CompareOutputs, TheFloorAdmitsCancellationNoiseOnly) {
  // An output near 1e-6 computed from operands near 1: rounding noise of a few ulps of the
  // operands is no error; without the floor it would be 10% of the output.
  Tensor a({2}, {1e-6f, -1e-6f}), noisy({2}, {1e-6f + 1e-7f, -1e-6f});
  EXPECT_TRUE(compare_output(a, noisy, 1e-3, noise_floor(1.0)).passed);
  EXPECT_FALSE(compare_output(a, noisy, 1e-3, 0).passed);
  // A deviation far above the operands' rounding fails even so.
  Tensor wrong({2}, {1e-6f + 1e-5f, -1e-6f});
  EXPECT_FALSE(compare_output(a, wrong, 1e-3, noise_floor(1.0)).passed);
  EXPECT_DOUBLE_EQ(noise_floor(1.0), 0x1p-10);
}

TEST(CompareOutputs, InfAndNanInTheSamePlacesAgree) {
  float inf = INFINITY, nan = NAN;
  Tensor a({5}, {1.f, inf, -inf, nan, 2.f}), b({5}, {1.f, inf, -inf, nan, 2.f});
  auto c = compare_output(a, b, 1e-3, 0);
  EXPECT_TRUE(c.passed) << c.why;
  EXPECT_EQ(c.error, 0.0);
}

TEST(CompareOutputs, InfAndNanInDifferentPlacesFailAndNameTheElement) {
  float inf = INFINITY, nan = NAN;
  Tensor a({4}, {1.f, inf, 2.f, nan});
  struct Case {
    Tensor got;
    std::string element;
  };
  for (auto const& [got, element] : {Case{Tensor({4}, {1.f, 3.f, 2.f, nan}), "element 1"}, Case{Tensor({4}, {1.f, -inf, 2.f, nan}), "element 1"},
                                     Case{Tensor({4}, {1.f, inf, nan, nan}), "element 2"}, Case{Tensor({4}, {1.f, inf, 2.f, 0.f}), "element 3"}}) {
    auto c = compare_output(a, got, 1e-3, 1.0, 2, "Add 'y'");
    EXPECT_FALSE(c.passed);
    EXPECT_TRUE(std::isinf(c.error));
    EXPECT_NE(c.why.find("output 2 (Add 'y'): " + element), std::string::npos) << c.why;
  }
}

TEST(CompareOutputs, ShapesAndCountsMustAgree) {
  Tensor a({2, 3}), b({3, 2});
  auto c = compare_output(a, b, 1e-3, 0);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.why.find("shapes differ"), std::string::npos) << c.why;
  std::vector<Tensor> one{a}, two{a, a};
  std::vector<double> floors{0.0};
  auto n = compare_outputs(one, two, 1e-3, floors);
  EXPECT_FALSE(n.passed);
  EXPECT_NE(n.why.find("output counts differ (1 vs 2)"), std::string::npos) << n.why;
}

TEST(CompareOutputs, ReportsTheFailingOutput) {
  Tensor a({2}, {1.f, 2.f}), b({2}, {1.f, 2.5f});
  std::vector<Tensor> want{a, a, a}, got{a, b, a};
  std::vector<double> floors{0.0, 0.0, 0.0};
  std::vector<std::string> labels{"Relu 'r'", "Add 's'", "Mul 't'"};
  auto c = compare_outputs(want, got, 1e-3, floors, labels);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.output, 1u);
  EXPECT_DOUBLE_EQ(c.error, 0.25);
  EXPECT_NE(c.why.find("output 1 (Add 's')"), std::string::npos) << c.why;
}

TEST(CompareOutputs, FloorsComeFromTheOperandsOfEachOutput) {
  // out0 = x + (-x) is exactly zero from operands up to |x|; out1 = sigmoid(x / 1000) reads
  // small values and writes values near 0.5.
  GraphBuilder b;
  auto x = b.input("x", {8});
  auto big = b.scale(x, 1000.f);
  auto g = std::move(b).build({b.add(big, b.scale(big, -1.f)), b.sigmoid(b.scale(x, 1e-3f))});
  Tensor in({8}, {1.f, -2.f, 3.f, -4.f, 0.5f, 0.f, 7.f, -0.25f});
  auto e = expected_outputs(g, {{"x", in}});
  ASSERT_EQ(e.values.size(), 2u);
  EXPECT_EQ(max_finite_magnitude(e.values[0]), 0.0);
  EXPECT_DOUBLE_EQ(e.floors[0], noise_floor(7000.0));
  EXPECT_NEAR(e.floors[1], noise_floor(0.5), noise_floor(0.01));
  EXPECT_NE(e.labels[0].find("Add"), std::string::npos) << e.labels[0];
  // Noise of an ulp of the operands passes on out0; a sizeable value does not.
  Tensor noise({8}), wrong({8});
  noise.mutable_data()[6] = 7000.f * 1.2e-7f;
  wrong.mutable_data()[6] = 1.f;
  EXPECT_TRUE(compare_output(e.values[0], noise, 1e-3, e.floors[0]).passed);
  EXPECT_FALSE(compare_output(e.values[0], wrong, 1e-3, e.floors[0]).passed);
}
