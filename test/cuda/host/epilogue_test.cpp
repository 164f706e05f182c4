// Where a convolution's or a matrix product's bias and activation run (autograph/cuda/epilogue.hpp,
// issue 16 defect 1): in the library call wherever cuDNN or cuBLASLt can fuse them, in a
// bias_activation kernel only for the rest. The launches listed are the ones lower(Conv2D) and
// lower(MatMul) register (LoweredGraph::Node::launches), by the same names; lowering itself needs
// a GPU (cuDNN measures the algorithms), so CudaOps.EpiloguesAreFusedIntoTheLibraryCall checks
// the lowered graphs there. A bias with GELU has no case: MatMul has no bias input and no GELU
// activation, and cuBLASLt's GELU epilogue is the tanh approximation, not UnaryKind::gelu's erf.
#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "autograph/cuda/epilogue.hpp"

namespace autograph::cuda {
namespace {

using Launches = std::vector<std::string_view>;
using CF = ConvEpilogue::Fused;
using GF = GemmEpilogue::Fused;
constexpr auto none = Activation::none, relu = Activation::relu, sigmoid = Activation::sigmoid, tanh_ = Activation::tanh;

TEST(Epilogue, ConvBiasReluIsOneCudnnCallAndNoSeparateKernel) {
  for (bool precomp_gemm_ok : {false, true}) {
    ConvEpilogue e = conv_epilogue(true, relu, precomp_gemm_ok);
    EXPECT_EQ(e.launches(), Launches{"cudnnConvolutionBiasActivationForward"});
    EXPECT_EQ(e.fused, CF::relu);  // CUDNN_ACTIVATION_RELU: any algorithm
    EXPECT_FALSE(e.zero_bias);
    EXPECT_FALSE(e.after.needed());
  }
}

TEST(Epilogue, AGraphApiPlanIsOneExecuteAndTheSeparateKernelWhenThereIsAnEpilogue) {
  // dnn::ConvForward takes a graph-API plan only when it measured faster with this pass included.
  ConvEpilogue plain{CF::no, false, {}, true}, bias_relu{CF::no, false, {true, relu}, true};
  EXPECT_EQ(plain.launches(), Launches{"cudnnBackendExecute"});
  EXPECT_EQ(bias_relu.launches(), (Launches{"cudnnBackendExecute", "bias_activation kernel"}));
  EXPECT_NE(bias_relu, (ConvEpilogue{CF::no, false, {true, relu}, false}));
}

TEST(Epilogue, MatMulReluIsOneCublasLtCallWithTheEpilogue) {
  EXPECT_EQ(gemm_epilogue(false, relu), (GemmEpilogue{GF::relu, {}}));            // CUBLASLT_EPILOGUE_RELU
  EXPECT_EQ(gemm_epilogue(false, relu).launches(), Launches{"cublasLtMatmul"});
  EXPECT_EQ(gemm_epilogue(true, relu), (GemmEpilogue{GF::relu_bias, {}}));        // CUBLASLT_EPILOGUE_RELU_BIAS
  EXPECT_EQ(gemm_epilogue(true, relu).launches(), Launches{"cublasLtMatmul"});
  EXPECT_EQ(gemm_epilogue(true, none), (GemmEpilogue{GF::bias, {}}));             // CUBLASLT_EPILOGUE_BIAS
  EXPECT_EQ(gemm_epilogue(false, none), (GemmEpilogue{GF::none, {}}));
}

TEST(Epilogue, MatMulBiasGeluFusesTheBiasAndRunsTheExactGeluAfter) {
  // cuBLASLt's GELU epilogue is the tanh approximation; Activation::gelu is the erf one.
  EXPECT_EQ(gemm_epilogue(true, Activation::gelu), (GemmEpilogue{GF::bias, {false, Activation::gelu}}));
  EXPECT_EQ(gemm_epilogue(true, Activation::gelu).launches(), (Launches{"cublasLtMatmul", "bias_activation kernel"}));
  EXPECT_EQ(conv_epilogue(true, Activation::gelu, true), (ConvEpilogue{CF::no, false, {true, Activation::gelu}}));
}

// start => launches, one line a case.
TEST(Epilogue, ConvolutionCases) {
  auto expect = [](ConvEpilogue e, ConvEpilogue want, Launches launches) {
    EXPECT_EQ(e, want);
    EXPECT_EQ(e.launches(), launches);
  };
  Launches conv{"cudnnConvolutionForward"}, fused{"cudnnConvolutionBiasActivationForward"};
  Launches conv_then_kernel{"cudnnConvolutionForward", "bias_activation kernel"};
  expect(conv_epilogue(false, none, true), {CF::no, false, {}}, conv);
  expect(conv_epilogue(false, relu, false), {CF::relu, true, {}}, fused);      // a zero bias: still one pass
  expect(conv_epilogue(true, none, true), {CF::identity, false, {}}, fused);   // IDENTITY: IMPLICIT_PRECOMP_GEMM
  expect(conv_epilogue(true, none, false), {CF::no, false, {true, none}}, conv_then_kernel);
  expect(conv_epilogue(true, sigmoid, true), {CF::no, false, {true, sigmoid}}, conv_then_kernel);
  expect(conv_epilogue(false, sigmoid, true), {CF::no, false, {false, sigmoid}}, conv_then_kernel);
  expect(conv_epilogue(true, tanh_, false), {CF::no, false, {true, tanh_}}, conv_then_kernel);
}

TEST(Epilogue, MatMulCases) {
  Launches gemm_then_kernel{"cublasLtMatmul", "bias_activation kernel"};
  EXPECT_EQ(gemm_epilogue(false, sigmoid), (GemmEpilogue{GF::none, {false, sigmoid}}));
  EXPECT_EQ(gemm_epilogue(false, sigmoid).launches(), gemm_then_kernel);
  EXPECT_EQ(gemm_epilogue(false, tanh_).launches(), gemm_then_kernel);
  EXPECT_EQ(gemm_epilogue(true, tanh_), (GemmEpilogue{GF::bias, {false, tanh_}}));  // the bias still fused
}

// The separate kernel is left only where the library has no fusion: never after relu or a bias alone.
TEST(Epilogue, ASeparateKernelOnlyForSigmoidAndTanh) {
  for (bool bias : {false, true})
    for (Activation act : {none, relu, sigmoid, tanh_}) {
      bool library_cannot = act == sigmoid || act == tanh_;
      EXPECT_EQ(gemm_epilogue(bias, act).after.needed(), library_cannot) << bias << " " << to_string(act);
      EXPECT_EQ(conv_epilogue(bias, act, true).after.needed(), library_cannot) << bias << " " << to_string(act);
    }
}

}  // namespace
}  // namespace autograph::cuda
