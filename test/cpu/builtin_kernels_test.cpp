// The CPU runtime's kernels of the built-in operators (autograph/cpu/ops.hpp): which kernels
// run (oneDNN's where it has the op), empty tensors, and what prepare() rejects. The cases per
// op family, against the reference kernels, are in the *_kernels_test.cpp beside this file.
#include "cpu/kernel_harness.hpp"

namespace autograph::cpu {
namespace {

using namespace testing;

// ---- which kernels run, and what is rejected --------------------------------------------------

std::vector<std::string> steps_of(auto const& op, std::vector<Tensor> const& in, std::vector<char> constant = {}) {
  auto node = prepare(op, in, constant);
  std::vector<std::string> names;
  for (auto const& s : node->prep.steps()) names.push_back(s.what);
  return names;
}

// Every built-in op that runs has a CPU kernel; sources (bound, not run) have none.
static_assert(HasCpuKernel<Conv2D> && HasCpuKernel<Pow> && HasCpuKernel<HardSwish> && HasCpuKernel<Resize> && HasCpuKernel<Identity>);
static_assert(!HasCpuKernel<Input> && !HasCpuKernel<Weight>);

bool has_step(std::vector<std::string> const& steps, std::string const& what) {
  return std::ranges::any_of(steps, [&](std::string const& s) { return s.find(what) != std::string::npos; });
}

TEST(CpuKernels, OneDnnWhereItHasTheOpOwnLoopsElsewhere) {
  auto dense = steps_of(conv({1, 1}, {1, 1, 1, 1}), {rnd({1, 16, 8, 8}, 1), rnd({16, 16, 3, 3}, 2), rnd({16}, 3)}, {0, 1, 1});
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
  EXPECT_TRUE(has_step(steps_of(Concat{.axis = 0}, {rnd({3, 4}, 1), rnd({3, 4}, 1)}), "oneDNN reorder (concat)"));
}

/// A bound node reads its non-constant inputs afresh on every run: new data in the same
/// buffers gives the reference's outputs for the new data.
TEST(CpuKernels, EachRunReadsTheInputsAgain) {
  Conv2D op = conv({1, 1}, {1, 1, 1, 1}, 4, {1, 1}, Activation::relu);  // grouped: a weight reordered on every run
  std::vector<Tensor> first{rnd({1, 8, 6, 6}, 1), rnd({8, 2, 3, 3}, 2), rnd({8}, 3)}, second{rnd({1, 8, 6, 6}, 4), rnd({8, 2, 3, 3}, 5), rnd({8}, 6)};
  auto node = prepare(op, first, {0, 0, 0}, 2);
  node->run();
  for (std::size_t i = 0; i < second.size(); ++i) std::ranges::copy(second[i].data(), node->in[i].begin());
  node->run();
  auto out = op.infer(descs_of(second));
  auto expected = reference::evaluate(op, std::span<Tensor const>(second), std::span<TensorDesc const>(out));
  auto c = compare_output(expected[0], node->outputs()[0], 1e-4, noise_floor(max_finite_magnitude(expected[0])));
  EXPECT_TRUE(c.passed) << c.why;
}

TEST(CpuKernels, EmptyInputs) {
  expect_matches(MatMul{.act = Activation::sigmoid}, {rnd({3, 0}, 1), rnd({0, 4}, 2)});  // act(0) everywhere
  expect_matches(Add{}, {rnd({0, 4}, 1), rnd({4}, 2)});                                   // nothing to compute
  expect_matches(Pad{.pads = {1, 1, 1, 1}, .value = 2.f}, {rnd({0, 3}, 3)});              // all padding
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
