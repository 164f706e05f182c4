// The cuDNN and cuBLASLt entry points autograph_cuda calls (src/cuda/dnn.cpp, device.cpp),
// recorded instead of run: descriptors are kept so that a convolution or matmul records the
// exact byte ranges of its operands (recording.hpp).
#include <cublasLt.h>
#include <cudnn.h>

#include <algorithm>
#include <cstring>

#include "recording.hpp"

// The opaque cuDNN types, defined here: this program links no libcudnn.
struct cudnnContext {
  cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
  int n = 0, c = 0, h = 0, w = 0;
};
struct cudnnActivationStruct {};
struct cudnnFilterStruct {
  int k = 0, c = 0, r = 0, s = 0;
};
struct cudnnConvolutionStruct {
  int pad_h = 0, pad_w = 0, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1, groups = 1;
};
struct cublasLtContext {};

using autograph::cuda::recording::Call;
using autograph::cuda::recording::range_of;
using autograph::cuda::recording::recorder;

namespace {

std::size_t bytes(cudnnTensorStruct const* t) { return std::size_t{4} * t->n * t->c * t->h * t->w; }
std::size_t bytes(cudnnFilterStruct const* f) { return std::size_t{4} * f->k * f->c * f->r * f->s; }

/// A cuBLASLt matrix layout, kept in the semi-opaque descriptor's storage.
struct Layout {
  std::uint64_t rows = 0, cols = 0;
  std::int64_t ld = 0, stride = 0;
  std::int32_t batch = 1;
};
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t));
Layout& layout(cublasLtMatrixLayout_t l) { return *reinterpret_cast<Layout*>(l->data); }
/// Column-major rows x cols with leading dimension ld, `batch` of them `stride` elements apart.
std::size_t bytes(Layout const& l) {
  if (l.rows == 0 || l.cols == 0 || l.batch == 0) return 0;
  auto one = static_cast<std::size_t>((l.cols - 1) * static_cast<std::uint64_t>(l.ld) + l.rows);
  return 4 * (one + static_cast<std::size_t>(l.batch - 1) * static_cast<std::size_t>(l.stride));
}

constexpr std::size_t conv_workspace = std::size_t{1} << 20;
constexpr std::size_t gemm_workspace = std::size_t{4} << 20;

template <class Perf>
void found(int requested, int* returned, Perf* perf) {
  if (requested < 1) {
    *returned = 0;
    return;
  }
  perf[0] = Perf{};
  perf[0].algo = static_cast<decltype(perf[0].algo)>(1);
  perf[0].status = CUDNN_STATUS_SUCCESS;
  perf[0].time = 0.1f;
  perf[0].memory = conv_workspace;
  perf[0].mathType = CUDNN_DEFAULT_MATH;
  *returned = 1;
}

Call& conv_call(cudnnHandle_t h, char const* name, void const* in, std::size_t in_bytes, void const* w, std::size_t w_bytes, void* out,
               std::size_t out_bytes, void* workspace, std::size_t workspace_bytes) {
  Call& c = recorder().add(Call::Kind::library, name, h->stream);
  c.accesses.push_back({range_of(in, in_bytes), false});
  c.accesses.push_back({range_of(w, w_bytes), false});
  c.accesses.push_back({range_of(out, out_bytes), true});
  if (workspace_bytes > 0) c.accesses.push_back({range_of(workspace, workspace_bytes), true});
  return c;
}

}  // namespace

extern "C" {

// ---- cuDNN -----------------------------------------------------------------------------------

cudnnStatus_t cudnnCreate(cudnnHandle_t* h) {
  *h = new cudnnContext;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroy(cudnnHandle_t h) {
  delete h;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s) {
  h->stream = s;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetStream(cudnnHandle_t h, cudaStream_t* s) {
  *s = h->stream;
  return CUDNN_STATUS_SUCCESS;
}
std::size_t cudnnGetVersion() { return 91900; }
char const* cudnnGetErrorString(cudnnStatus_t s) { return s == CUDNN_STATUS_SUCCESS ? "CUDNN_STATUS_SUCCESS" : "CUDNN_STATUS_(recorded runtime)"; }

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t* d) {
  *d = new cudnnTensorStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format, cudnnDataType_t type, int n, int c, int h, int w) {
  if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT || n <= 0 || c <= 0 || h <= 0 || w <= 0) return CUDNN_STATUS_BAD_PARAM;
  *d = {n, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t* d) {
  *d = new cudnnFilterStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type, cudnnTensorFormat_t format, int k, int c, int h, int w) {
  if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT || k <= 0 || c <= 0 || h <= 0 || w <= 0) return CUDNN_STATUS_BAD_PARAM;
  *d = {k, c, h, w};
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t* d) {
  *d = new cudnnConvolutionStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int pad_h, int pad_w, int u, int v, int dh, int dw,
                                              cudnnConvolutionMode_t, cudnnDataType_t) {
  if (pad_h < 0 || pad_w < 0 || u <= 0 || v <= 0 || dh <= 0 || dw <= 0) return CUDNN_STATUS_BAD_PARAM;
  d->pad_h = pad_h;
  d->pad_w = pad_w;
  d->stride_h = u;
  d->stride_w = v;
  d->dilation_h = dh;
  d->dilation_w = dw;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int groups) {
  if (groups <= 0) return CUDNN_STATUS_BAD_PARAM;
  d->groups = groups;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t, cudnnMathType_t) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}
// cuDNN's formula: out = (in + 2 pad - ((filter - 1) dilation + 1)) / stride + 1.
cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(cudnnConvolutionDescriptor_t const conv, cudnnTensorDescriptor_t const x,
                                                    cudnnFilterDescriptor_t const f, int* n, int* c, int* h, int* w) {
  if (x->c != f->c * conv->groups || f->k % conv->groups != 0) return CUDNN_STATUS_BAD_PARAM;
  *n = x->n;
  *c = f->k;
  *h = (x->h + 2 * conv->pad_h - ((f->r - 1) * conv->dilation_h + 1)) / conv->stride_h + 1;
  *w = (x->w + 2 * conv->pad_w - ((f->s - 1) * conv->dilation_w + 1)) / conv->stride_w + 1;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionForwardAlgorithmMaxCount(cudnnHandle_t, int* count) {
  *count = 8;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnFindConvolutionForwardAlgorithm(cudnnHandle_t h, cudnnTensorDescriptor_t const, cudnnFilterDescriptor_t const,
                                                   cudnnConvolutionDescriptor_t const, cudnnTensorDescriptor_t const, int const requested,
                                                   int* returned, cudnnConvolutionFwdAlgoPerf_t* perf) {
  recorder().add(Call::Kind::library_search, "cudnnFindConvolutionForwardAlgorithm", h->stream);
  found(requested, returned, perf);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(cudnnHandle_t, cudnnTensorDescriptor_t const, cudnnFilterDescriptor_t const,
                                                      cudnnConvolutionDescriptor_t const, cudnnTensorDescriptor_t const, cudnnConvolutionFwdAlgo_t,
                                                      std::size_t* bytes) {
  *bytes = conv_workspace;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, void const*, cudnnTensorDescriptor_t const xd, void const* x, cudnnFilterDescriptor_t const wd,
                                      void const* w, cudnnConvolutionDescriptor_t const, cudnnConvolutionFwdAlgo_t, void* workspace,
                                      std::size_t workspace_bytes, void const*, cudnnTensorDescriptor_t const yd, void* y) {
  conv_call(h, "cudnnConvolutionForward", x, bytes(xd), w, bytes(wd), y, bytes(yd), workspace, workspace_bytes);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnConvolutionBiasActivationForward(cudnnHandle_t h, void const*, cudnnTensorDescriptor_t const xd, void const* x,
                                                    cudnnFilterDescriptor_t const wd, void const* w, cudnnConvolutionDescriptor_t const,
                                                    cudnnConvolutionFwdAlgo_t, void* workspace, std::size_t workspace_bytes,
                                                    void const* alpha2, cudnnTensorDescriptor_t const zd, void const* z,
                                                    cudnnTensorDescriptor_t const bd, void const* bias, cudnnActivationDescriptor_t const,
                                                    cudnnTensorDescriptor_t const yd, void* y) {
  Call& c = conv_call(h, "cudnnConvolutionBiasActivationForward", x, bytes(xd), w, bytes(wd), y, bytes(yd), workspace, workspace_bytes);
  c.accesses.push_back({range_of(bias, bytes(bd)), false});
  // y = act(alpha1 conv(x) + alpha2 z + bias): z is read only when alpha2 is not 0 (float data).
  if (alpha2 && *static_cast<float const*>(alpha2) != 0) c.accesses.push_back({range_of(z, bytes(zd)), false});
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnCreateActivationDescriptor(cudnnActivationDescriptor_t* d) {
  *d = new cudnnActivationStruct;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnSetActivationDescriptor(cudnnActivationDescriptor_t, cudnnActivationMode_t, cudnnNanPropagation_t, double) {
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnDestroyActivationDescriptor(cudnnActivationDescriptor_t d) {
  delete d;
  return CUDNN_STATUS_SUCCESS;
}
// cuDNN's graph API (src/cuda/conv_engine.cpp): this recording cuDNN offers no backend
// descriptors, so every convolution keeps its legacy algorithm here, as on a cuDNN whose graph
// API offers no plan for a shape. What runs through the graph API on a GPU is therefore not
// checked by these recordings (README, "The CUDA runtime without a GPU").
cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t* d) {
  *d = nullptr;
  return CUDNN_STATUS_NOT_SUPPORTED;
}
cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t) { return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnBackendFinalize(cudnnBackendDescriptor_t) { return CUDNN_STATUS_NOT_SUPPORTED; }
cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                                       void const*) {
  return CUDNN_STATUS_NOT_SUPPORTED;
}
cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t,
                                       int64_t*, void*) {
  return CUDNN_STATUS_NOT_SUPPORTED;
}
cudnnStatus_t cudnnBackendExecute(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t) { return CUDNN_STATUS_NOT_SUPPORTED; }
cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithmMaxCount(cudnnHandle_t, int* count) {
  *count = 6;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnFindConvolutionBackwardDataAlgorithm(cudnnHandle_t h, cudnnFilterDescriptor_t const, cudnnTensorDescriptor_t const,
                                                        cudnnConvolutionDescriptor_t const, cudnnTensorDescriptor_t const, int const requested,
                                                        int* returned, cudnnConvolutionBwdDataAlgoPerf_t* perf) {
  recorder().add(Call::Kind::library_search, "cudnnFindConvolutionBackwardDataAlgorithm", h->stream);
  found(requested, returned, perf);
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(cudnnHandle_t, cudnnFilterDescriptor_t const, cudnnTensorDescriptor_t const,
                                                           cudnnConvolutionDescriptor_t const, cudnnTensorDescriptor_t const,
                                                           cudnnConvolutionBwdDataAlgo_t, std::size_t* bytes) {
  *bytes = conv_workspace;
  return CUDNN_STATUS_SUCCESS;
}
cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, void const*, cudnnFilterDescriptor_t const wd, void const* w,
                                           cudnnTensorDescriptor_t const dyd, void const* dy, cudnnConvolutionDescriptor_t const,
                                           cudnnConvolutionBwdDataAlgo_t, void* workspace, std::size_t workspace_bytes, void const*,
                                           cudnnTensorDescriptor_t const dxd, void* dx) {
  conv_call(h, "cudnnConvolutionBackwardData", dy, bytes(dyd), w, bytes(wd), dx, bytes(dxd), workspace, workspace_bytes);
  return CUDNN_STATUS_SUCCESS;
}

// ---- cuBLASLt --------------------------------------------------------------------------------

cublasStatus_t cublasLtCreate(cublasLtHandle_t* h) {
  *h = new cublasLtContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtDestroy(cublasLtHandle_t h) {
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}
std::size_t cublasLtGetVersion() { return 130002; }
char const* cublasLtGetStatusName(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? "CUBLAS_STATUS_SUCCESS" : "CUBLAS_STATUS_(recorded runtime)"; }
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* d, cublasComputeType_t, cudaDataType_t) {
  *d = new cublasLtMatmulDescOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t d) {
  delete d;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, void const*, std::size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* p) {
  *p = new cublasLtMatmulPreferenceOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, void const*, std::size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* l, cudaDataType type, std::uint64_t rows, std::uint64_t cols, std::int64_t ld) {
  if (type != CUDA_R_32F || ld < static_cast<std::int64_t>(rows)) return CUBLAS_STATUS_INVALID_VALUE;
  *l = new cublasLtMatrixLayoutOpaque_t{};
  layout(*l) = Layout{rows, cols, ld, 0, 1};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t l) {
  delete l;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr, void const* buf, std::size_t size) {
  if (attr == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT && size == sizeof(std::int32_t)) std::memcpy(&layout(l).batch, buf, size);
  else if (attr == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET && size == sizeof(std::int64_t)) std::memcpy(&layout(l).stride, buf, size);
  else return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                                              cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int requested,
                                              cublasLtMatmulHeuristicResult_t* results, int* returned) {
  *returned = 0;
  if (requested < 1) return CUBLAS_STATUS_INVALID_VALUE;
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].workspaceSize = gemm_workspace;
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, void const*, void const* a, cublasLtMatrixLayout_t ad, void const* b,
                              cublasLtMatrixLayout_t bd, void const*, void const*, cublasLtMatrixLayout_t, void* d, cublasLtMatrixLayout_t dd,
                              cublasLtMatmulAlgo_t const*, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  // beta is 0 in the library's calls: C is not read, D is written.
  Call& c = recorder().add(Call::Kind::library, "cublasLtMatmul", stream);
  c.accesses.push_back({range_of(a, bytes(layout(ad))), false});
  c.accesses.push_back({range_of(b, bytes(layout(bd))), false});
  c.accesses.push_back({range_of(d, bytes(layout(dd))), true});
  if (workspace_bytes > 0) c.accesses.push_back({range_of(workspace, workspace_bytes), true});
  return CUBLAS_STATUS_SUCCESS;
}

}  // extern "C"
