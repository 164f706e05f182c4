#pragma once
// cuDNN convolutions and cuBLASLt matrix products, planned once at lowering time and run at
// capture time. Internal to the autograph_cuda library (src/cuda/).
//
// The convolution algorithm is chosen by measurement (cudnnFind*), once per device and
// signature for the whole process. cuDNN 9 still ships the legacy convolution API
// (cudnn_cnn.h): one call per convolution, capturable into CUDA graphs with a caller-provided
// workspace. With TF32 allowed, a forward convolution also times the graph API's execution
// plans (conv_engine.hpp) and takes one where it is faster.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "autograph/cuda/device.hpp"
#include "autograph/cuda/epilogue.hpp"

namespace autograph::cuda::dnn {

/// A 2-D convolution in cuDNN's forward terms: x[n,c,h,w] * w[k,c/groups,r,s] -> y[n,k,out_h,out_w],
/// symmetric padding.
struct ConvShape {
  int n = 0, c = 0, h = 0, w = 0;
  int k = 0, r = 0, s = 0;
  int groups = 1;
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int out_h = 0, out_w = 0;
  std::string key() const;
};

/// y = act(conv(x, w) + bias): one cudnnConvolutionBiasActivationForward where cuDNN fuses
/// the bias and activation (epilogue()), else cudnnConvolutionForward and the rest is the
/// caller's (epilogue().after, a bias_activation kernel).
class ConvForward {
 public:
  /// Chooses the fastest algorithm (measured once per device and shape), and how the bias and
  /// activation run (conv_epilogue, epilogue.hpp). @throws CudaError.
  ConvForward(Device& device, ConvShape const& shape, bool allow_tf32, bool bias = false, Activation act = Activation::none);
  ~ConvForward();
  std::size_t workspace_bytes() const;
  ConvEpilogue const& epilogue() const;
  /// `bias`: k floats when epilogue().fused is not no (zeros for zero_bias), else ignored.
  void run(Device& device, cudaStream_t stream, float const* x, float const* w, float const* bias, float* y, void* workspace) const;

 private:
  /// With TF32 allowed, times cuDNN's graph-API plans for this convolution (conv_engine.hpp)
  /// against the legacy choice, each with the bias_activation pass it needs, and keeps a plan
  /// only when it is faster; once per device, shape and epilogue for the whole process.
  void choose_engine(Device& device, ConvShape const& shape, std::string const& key, bool bias, Activation act);
  struct State;
  std::unique_ptr<State> s_;
};

/// dx = the gradient of conv with respect to its input, given dy: a transposed convolution
/// of dy[n,k,out_h,out_w] with w[k,c/groups,r,s] into dx[n,c,h,w].
class ConvBackwardData {
 public:
  ConvBackwardData(Device& device, ConvShape const& shape, bool allow_tf32);
  ~ConvBackwardData();
  std::size_t workspace_bytes() const;
  void run(Device& device, cudaStream_t stream, float const* dy, float const* w, float* dx, void* workspace) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// Row-major c[m,n] = a[m,k] b[k,n], `batch` times with element strides between the
/// matrices (0: the same matrix every time); a bias (one per column of c) and relu fused as
/// `epilogue` says (gemm_epilogue, epilogue.hpp). Alignments are what the
/// pointers are guaranteed (bytes), so the heuristic only offers algorithms that can use them.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  int batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  std::uint32_t align_a = 4, align_b = 4, align_c = 4;
  GemmEpilogue::Fused epilogue = GemmEpilogue::Fused::none;
};

/// Workspace offered to cuBLASLt's heuristic (NVIDIA recommends 32 MiB on Hopper): no
/// algorithm it picks asks for more, so a product lowered for planning only reserves this.
inline constexpr std::size_t max_gemm_workspace = std::size_t{32} << 20;

class Gemm {
 public:
  Gemm(Device& device, GemmShape const& shape, bool allow_tf32);
  ~Gemm();
  std::size_t workspace_bytes() const;
  /// `bias`: n floats when the epilogue has a bias, else ignored.
  void run(Device& device, cudaStream_t stream, float const* a, float const* b, float const* bias, float* c, void* workspace) const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

/// Binds the device's cuDNN handle to the default stream if it is bound to `stream`, which
/// is about to be destroyed: the handle keeps the stream the last convolution's run() set,
/// and a later call that does not set its own (a user kernel's) would enqueue on a dead
/// stream. cuBLASLt needs no such call: it takes the stream per call and keeps none.
void forget_stream(Device& device, cudaStream_t stream) noexcept;

/// "9.19.0" and "13.0.2": the versions of the libraries this program runs with.
std::string cudnn_version();
std::string cublas_version();

}  // namespace autograph::cuda::dnn
