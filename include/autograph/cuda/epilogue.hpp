#pragma once
// Where the bias and the activation of a library call run (issue 16, defect 1): fused into
// the call — cuDNN's cudnnConvolutionBiasActivationForward, cuBLASLt's epilogues — or, only
// for what the library cannot fuse, in one bias_activation kernel after it. Pure functions of
// the operator (and, for a convolution with a bias alone, of one measured fact), so the host
// tests check the choice without a GPU (test/cuda/host/epilogue_test.cpp). lower(Conv2D) and
// lower(MatMul) (src/cuda/lower_ops.cpp) register exactly the launches `launches()` lists, by
// these names, in LoweredGraph::Node::launches. Free of cudnn.h and cublasLt.h: src/cuda/dnn.cpp
// maps the fused forms to the libraries' enums.
#include <cstdint>
#include <string_view>
#include <vector>

#include "autograph/ops/activation.hpp"

namespace autograph::cuda {

/// The names the launches are registered under (LoweredGraph::Launch::what).
inline constexpr std::string_view conv_launch = "cudnnConvolutionForward";
inline constexpr std::string_view conv_bias_act_launch = "cudnnConvolutionBiasActivationForward";
inline constexpr std::string_view conv_engine_launch = "cudnnBackendExecute";
inline constexpr std::string_view gemm_launch = "cublasLtMatmul";
inline constexpr std::string_view bias_activation_launch = "bias_activation kernel";

/// What a bias_activation kernel after the library call still applies; nothing: no kernel.
struct SeparateEpilogue {
  bool bias = false;
  Activation act = Activation::none;
  bool needed() const { return bias || act != Activation::none; }
  bool operator==(SeparateEpilogue const&) const = default;
};

/// y = act(conv(x, w) + bias). cudnnConvolutionBiasActivationForward applies CUDNN_ACTIVATION_RELU
/// with any algorithm and CUDNN_ACTIVATION_IDENTITY (a bias alone) only with
/// CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM; it has no sigmoid or tanh.
struct ConvEpilogue {
  enum class Fused : std::uint8_t { no, relu, identity };
  Fused fused = Fused::no;
  bool zero_bias = false;  // relu without a bias: the fused call reads a bias all the same (zeros)
  SeparateEpilogue after;
  /// The convolution runs through cuDNN's graph API (an execution plan measured faster than
  /// the legacy algorithm, src/cuda/conv_engine.hpp); fused is then no.
  bool engine = false;
  bool operator==(ConvEpilogue const&) const = default;

  std::vector<std::string_view> launches() const {
    std::vector<std::string_view> l{engine ? conv_engine_launch : fused == Fused::no ? conv_launch : conv_bias_act_launch};
    if (after.needed()) l.push_back(bias_activation_launch);
    return l;
  }
};

/// @param precomp_gemm_ok IMPLICIT_PRECOMP_GEMM runs this convolution within the workspace cap
///   and about as fast as the fastest algorithm (dnn.cpp measures it): only then is a bias
///   without an activation fused (IDENTITY), otherwise it costs a pass of its own.
/// @post sigmoid and tanh leave the bias to the kernel too: fusing the bias alone would need
///   IMPLICIT_PRECOMP_GEMM and still leave one pass over y.
inline ConvEpilogue conv_epilogue(bool bias, Activation act, bool precomp_gemm_ok) {
  using F = ConvEpilogue::Fused;
  switch (act) {
    case Activation::relu: return {F::relu, !bias, {}};
    case Activation::none:
      if (!bias) return {};
      if (precomp_gemm_ok) return {F::identity, false, {}};
      return {F::no, false, {true, Activation::none}};
    case Activation::sigmoid:
    case Activation::tanh:
    case Activation::gelu: return {F::no, false, {bias, act}};
  }
  return {F::no, false, {bias, act}};
}

/// y = act(a b + bias), the bias one value per column of y (per output feature). cuBLASLt's
/// epilogues fuse relu and a bias (CUBLASLT_EPILOGUE_RELU, _BIAS, _RELU_BIAS; dnn.cpp); they
/// have no sigmoid or tanh. Their GELU (CUBLASLT_EPILOGUE_GELU_BIAS) is the tanh approximation
/// (cublasLt.h only says "GELU"; XLA's GemmRewriter, xla/service/gpu/gemm_rewriter.cc
/// FuseGeluActivation, fuses only 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) into it), not the
/// exact erf GELU of Activation::gelu: the bias is fused, the GELU runs after, in place.
struct GemmEpilogue {
  enum class Fused : std::uint8_t { none, relu, bias, relu_bias };
  Fused fused = Fused::none;
  SeparateEpilogue after;
  bool operator==(GemmEpilogue const&) const = default;

  std::vector<std::string_view> launches() const {
    std::vector<std::string_view> l{gemm_launch};
    if (after.needed()) l.push_back(bias_activation_launch);
    return l;
  }
};

/// @param bias whether the product has a bias (MatMul's optional third input, dnn::Gemm::run's `bias`).
inline GemmEpilogue gemm_epilogue(bool bias, Activation act) {
  using F = GemmEpilogue::Fused;
  switch (act) {
    case Activation::none: return {bias ? F::bias : F::none, {}};
    case Activation::relu: return {bias ? F::relu_bias : F::relu, {}};
    case Activation::sigmoid:
    case Activation::tanh:
    case Activation::gelu: return {bias ? F::bias : F::none, {false, act}};
  }
  return {bias ? F::bias : F::none, {false, act}};
}

}  // namespace autograph::cuda
