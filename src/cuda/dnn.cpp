// cuDNN convolutions and cuBLASLt matrix products (see dnn.hpp).
#include "dnn.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "autograph/cuda/kernels.hpp"
#include "autograph/cuda/libraries.hpp"
#include "conv_engine.hpp"

namespace autograph::cuda::dnn {
namespace {

template <class T, cudnnStatus_t (*Destroy)(T)>
struct CudnnDeleter {
  void operator()(T d) const {
    if (d) (void)Destroy(d);
  }
};
using TensorDesc = std::unique_ptr<std::remove_pointer_t<cudnnTensorDescriptor_t>,
                                   CudnnDeleter<cudnnTensorDescriptor_t, cudnnDestroyTensorDescriptor>>;
using FilterDesc = std::unique_ptr<std::remove_pointer_t<cudnnFilterDescriptor_t>,
                                   CudnnDeleter<cudnnFilterDescriptor_t, cudnnDestroyFilterDescriptor>>;
using ConvDesc = std::unique_ptr<std::remove_pointer_t<cudnnConvolutionDescriptor_t>,
                                 CudnnDeleter<cudnnConvolutionDescriptor_t, cudnnDestroyConvolutionDescriptor>>;
using ActivationDesc = std::unique_ptr<std::remove_pointer_t<cudnnActivationDescriptor_t>,
                                       CudnnDeleter<cudnnActivationDescriptor_t, cudnnDestroyActivationDescriptor>>;

TensorDesc make_tensor(int n, int c, int h, int w) {
  cudnnTensorDescriptor_t d = nullptr;
  check(cudnnCreateTensorDescriptor(&d), "cudnnCreateTensorDescriptor");
  TensorDesc owned(d);
  check(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w), "cudnnSetTensor4dDescriptor",
        "[" + std::to_string(n) + "," + std::to_string(c) + "," + std::to_string(h) + "," + std::to_string(w) + "]");
  return owned;
}

/// The descriptors of one convolution, in cuDNN's forward terms.
struct ConvDescriptors {
  TensorDesc x, y;
  FilterDesc w;
  ConvDesc conv;

  ConvDescriptors(ConvShape const& s, cudnnMathType_t math) : x(make_tensor(s.n, s.c, s.h, s.w)), y(make_tensor(s.n, s.k, s.out_h, s.out_w)) {
    std::string what = "convolution " + s.key();
    cudnnFilterDescriptor_t f = nullptr;
    check(cudnnCreateFilterDescriptor(&f), "cudnnCreateFilterDescriptor");
    w.reset(f);
    check(cudnnSetFilter4dDescriptor(f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.k, s.c / s.groups, s.r, s.s), "cudnnSetFilter4dDescriptor", what);
    cudnnConvolutionDescriptor_t c = nullptr;
    check(cudnnCreateConvolutionDescriptor(&c), "cudnnCreateConvolutionDescriptor");
    conv.reset(c);
    check(cudnnSetConvolution2dDescriptor(c, s.pad_h, s.pad_w, s.stride_h, s.stride_w, s.dilation_h, s.dilation_w, CUDNN_CROSS_CORRELATION,
                                          CUDNN_DATA_FLOAT),
          "cudnnSetConvolution2dDescriptor", what);
    check(cudnnSetConvolutionGroupCount(c, s.groups), "cudnnSetConvolutionGroupCount", what);
    check(cudnnSetConvolutionMathType(c, math), "cudnnSetConvolutionMathType", what);
    // cuDNN's own output shape must be ours: a mismatch is a bug in the lowering, not in cuDNN.
    int n = 0, k = 0, h = 0, wd = 0;
    check(cudnnGetConvolution2dForwardOutputDim(c, x.get(), f, &n, &k, &h, &wd), "cudnnGetConvolution2dForwardOutputDim", what);
    if (n != s.n || k != s.k || h != s.out_h || wd != s.out_w)
      throw CudaError(what + ": cuDNN computes output [" + std::to_string(n) + "," + std::to_string(k) + "," + std::to_string(h) + "," +
                      std::to_string(wd) + "], the graph expects [" + std::to_string(s.n) + "," + std::to_string(s.k) + "," +
                      std::to_string(s.out_h) + "," + std::to_string(s.out_w) + "]");
  }
};

/// Workspace a chosen algorithm may use at most: beyond this, a slower algorithm is taken
/// rather than an arena inflated for one layer.
constexpr std::size_t max_conv_workspace = std::size_t{256} << 20;

/// The measured choice for one (device, direction, shape, math) signature.
struct Choice {
  int algo = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::size_t workspace = 0;
  float ms = 0;  // as measured by cudnnFind*
};
/// The fastest algorithm, and for forward convolutions IMPLICIT_PRECOMP_GEMM's result too
/// (the only algorithm the fused call takes with CUDNN_ACTIVATION_IDENTITY), when it ran.
struct Choices {
  Choice fastest;
  std::optional<Choice> precomp_gemm;
};

std::mutex cache_mutex;
std::map<std::string, Choices>& algorithm_cache() {
  static std::map<std::string, Choices> cache;
  return cache;
}

template <class Perf>
bool usable(Perf const& p) {
  return p.status == CUDNN_STATUS_SUCCESS && p.memory <= max_conv_workspace;
}
template <class Perf>
Choice choice_of(Perf const& p, bool allow_tf32) {
  // Without TF32 the search ran with CUDNN_FMA_MATH, and the launches keep it, whatever
  // math type a result reports (DEFAULT_MATH would permit TF32 on Ampere and later).
  return Choice{static_cast<int>(p.algo), allow_tf32 ? p.mathType : CUDNN_FMA_MATH, p.memory, p.time};
}

/// Picks the fastest successful result that fits the workspace cap. Results come sorted by time.
template <class Perf>
Choice pick(Perf const* results, int count, bool allow_tf32, std::string const& what) {
  std::string tried;
  for (int i = 0; i < count; ++i)
    if (usable(results[i])) return choice_of(results[i], allow_tf32);
  for (int i = 0; i < count; ++i) tried += (i ? ", " : "") + std::string(cudnnGetErrorString(results[i].status));
  throw CudaError(what + ": no cuDNN algorithm ran (" + std::to_string(count) + " tried: " + tried + ")");
}

/// A bias alone is fused (IDENTITY, IMPLICIT_PRECOMP_GEMM only) when that algorithm is at most
/// this much slower than the fastest: a separate bias pass reads and writes all of y, which on
/// the convolutions of the zoo's CNNs costs more than a tenth of the convolution. A heuristic,
/// not measured on a GPU yet.
constexpr float identity_fusion_slack = 1.10f;

cudnnActivationMode_t cudnn_mode(ConvEpilogue::Fused f) {
  return f == ConvEpilogue::Fused::relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY;
}

/// AUTOGRAPH_CUDNN_ENGINES=0 keeps every convolution on the legacy API (to measure what the
/// graph API gains); =log also prints each measured choice to stderr.
std::string_view engines_setting() {
  char const* v = std::getenv("AUTOGRAPH_CUDNN_ENGINES");
  return v ? std::string_view(v) : std::string_view();
}

/// A device allocation for timing candidates, freed with its owner.
struct Scratch {
  void* p = nullptr;
  explicit Scratch(std::size_t bytes) {
    if (bytes && cudaMalloc(&p, bytes) != cudaSuccess) throw CudaError("cudaMalloc of " + std::to_string(bytes) + " bytes for timing a convolution");
  }
  Scratch(Scratch const&) = delete;
  Scratch& operator=(Scratch const&) = delete;
  ~Scratch() {
    if (p) (void)cudaFree(p);
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

/// Device milliseconds of one `launch`: `per_graph` of them captured into one CUDA graph,
/// replayed `replays` times between two events, as the runtime runs a model (so a library's
/// host-side cost per call, paid once at capture, is not counted). Nullopt when any step
/// fails: the candidate is then not taken.
std::optional<float> replay_ms(std::function<void(cudaStream_t)> const& launch) {
  constexpr int per_graph = 10, replays = 5;
  cudaStream_t s = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) return std::nullopt;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  bool capturing = false;
  std::optional<float> ms;
  try {
    launch(s);  // once outside a graph: nothing lazy (module loading) may happen while capturing
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize", "timing a convolution");
    check(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture", "timing a convolution");
    capturing = true;
    for (int i = 0; i < per_graph; ++i) launch(s);
    capturing = false;
    check(cudaStreamEndCapture(s, &graph), "cudaStreamEndCapture", "timing a convolution");
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate", "timing a convolution");
    check(cudaGraphLaunch(exec, s), "cudaGraphLaunch", "timing a convolution");  // warm-up
    check(cudaEventCreateWithFlags(&start, cudaEventDefault), "cudaEventCreateWithFlags", "timing a convolution");
    check(cudaEventCreateWithFlags(&stop, cudaEventDefault), "cudaEventCreateWithFlags", "timing a convolution");
    check(cudaEventRecord(start, s), "cudaEventRecord", "timing a convolution");
    for (int r = 0; r < replays; ++r) check(cudaGraphLaunch(exec, s), "cudaGraphLaunch", "timing a convolution");
    check(cudaEventRecord(stop, s), "cudaEventRecord", "timing a convolution");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize", "timing a convolution");
    float total = 0;
    check(cudaEventElapsedTime(&total, start, stop), "cudaEventElapsedTime", "timing a convolution");
    ms = total / (per_graph * replays);
  } catch (CudaError const&) {
    if (capturing) {
      cudaGraph_t partial = nullptr;
      if (cudaStreamEndCapture(s, &partial) == cudaSuccess && partial) (void)cudaGraphDestroy(partial);
    }
    (void)cudaGetLastError();  // a failed candidate leaves no sticky error for the next call
    ms.reset();
  }
  if (start) (void)cudaEventDestroy(start);
  if (stop) (void)cudaEventDestroy(stop);
  if (exec) (void)cudaGraphExecDestroy(exec);
  if (graph) (void)cudaGraphDestroy(graph);
  (void)cudaStreamSynchronize(s);
  (void)cudaStreamDestroy(s);
  return ms;
}

/// The graph-API plan measured fastest for one (device, shape, epilogue), if it beat the legacy algorithm.
std::map<std::string, std::optional<ConvEngine>>& engine_cache() {
  static std::map<std::string, std::optional<ConvEngine>> cache;
  return cache;
}

}  // namespace

std::string ConvShape::key() const {
  auto i = [](int v) { return std::to_string(v); };
  return "x[" + i(n) + "," + i(c) + "," + i(h) + "," + i(w) + "] w[" + i(k) + "," + i(c / std::max(groups, 1)) + "," + i(r) + "," + i(s) + "] g" +
         i(groups) + " p" + i(pad_h) + "," + i(pad_w) + " s" + i(stride_h) + "," + i(stride_w) + " d" + i(dilation_h) + "," + i(dilation_w);
}

// ---- forward convolution -------------------------------------------------------------------

struct ConvForward::State {
  ConvDescriptors d;
  Choice choice;
  std::optional<ConvEngine> engine;  // the graph API's plan, when measured faster (conv_engine.hpp)
  ConvEpilogue epilogue;
  TensorDesc bias;           // [1, k, 1, 1], when fused
  ActivationDesc activation;  // when fused
  std::string what;
  State(ConvShape const& s, cudnnMathType_t m) : d(s, m) {}
};

ConvForward::ConvForward(Device& device, ConvShape const& shape, bool allow_tf32, bool bias, Activation act) {
  cudnnMathType_t math = allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  s_ = std::make_unique<State>(shape, math);
  s_->what = "convolution " + shape.key();
  std::string key = "fwd dev" + std::to_string(device.index()) + " " + shape.key() + (allow_tf32 ? " tf32" : " fp32");
  Choices found;
  std::lock_guard lock(cache_mutex);
  auto& cache = algorithm_cache();
  if (auto it = cache.find(key); it != cache.end()) {
    found = it->second;
  } else {
    cudnnHandle_t h = device.libraries().cudnn;
    // Find runs on the handle's stream, which the last launch set to a stream that may be gone.
    check(cudnnSetStream(h, nullptr), "cudnnSetStream", s_->what);
    int max_count = 0;
    check(cudnnGetConvolutionForwardAlgorithmMaxCount(h, &max_count), "cudnnGetConvolutionForwardAlgorithmMaxCount", s_->what);
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(std::max(max_count, 1)));
    int returned = 0;
    check(cudnnFindConvolutionForwardAlgorithm(h, s_->d.x.get(), s_->d.w.get(), s_->d.conv.get(), s_->d.y.get(), max_count, &returned,
                                               perf.data()),
          "cudnnFindConvolutionForwardAlgorithm", s_->what);
    found.fastest = pick(perf.data(), returned, allow_tf32, s_->what);
    for (int i = 0; i < returned; ++i)  // the fastest usable result of that algorithm (one per math type)
      if (perf[static_cast<std::size_t>(i)].algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM && usable(perf[static_cast<std::size_t>(i)])) {
        found.precomp_gemm = choice_of(perf[static_cast<std::size_t>(i)], allow_tf32);
        break;
      }
    cache.emplace(key, found);
  }
  bool precomp_gemm_ok = found.precomp_gemm && found.precomp_gemm->ms <= found.fastest.ms * identity_fusion_slack;
  s_->epilogue = conv_epilogue(bias, act, precomp_gemm_ok);
  s_->choice = s_->epilogue.fused == ConvEpilogue::Fused::identity ? *found.precomp_gemm : found.fastest;
  if (s_->epilogue.fused != ConvEpilogue::Fused::no) {
    s_->bias = make_tensor(1, shape.k, 1, 1);
    cudnnActivationDescriptor_t a = nullptr;
    check(cudnnCreateActivationDescriptor(&a), "cudnnCreateActivationDescriptor", s_->what);
    s_->activation.reset(a);
    // NOT_PROPAGATE_NAN: relu(NaN) = 0, as the reference's x > 0 ? x : 0.
    check(cudnnSetActivationDescriptor(a, cudnn_mode(s_->epilogue.fused), CUDNN_NOT_PROPAGATE_NAN, 0.0), "cudnnSetActivationDescriptor",
          s_->what);
  }
  check(cudnnSetConvolutionMathType(s_->d.conv.get(), s_->choice.math), "cudnnSetConvolutionMathType", s_->what);
  // The size the chosen algorithm reports for exactly these descriptors.
  std::size_t bytes = 0;
  check(cudnnGetConvolutionForwardWorkspaceSize(device.libraries().cudnn, s_->d.x.get(), s_->d.w.get(), s_->d.conv.get(), s_->d.y.get(),
                                                static_cast<cudnnConvolutionFwdAlgo_t>(s_->choice.algo), &bytes),
        "cudnnGetConvolutionForwardWorkspaceSize", s_->what);
  s_->choice.workspace = std::max(bytes, s_->choice.workspace);
  if (allow_tf32 && engines_setting() != "0") choose_engine(device, shape, key, bias, act);
}

void ConvForward::choose_engine(Device& device, ConvShape const& shape, std::string const& key, bool bias, Activation act) {
  // Only with TF32 allowed: the graph API's FP32 engines on Hopper are TF32 tensor-core
  // kernels, and telling them apart needs each engine's numerical notes; without TF32 the
  // legacy API's FMA math stays.
  std::string engine_key = key + (bias ? " bias" : "") + " act" + std::to_string(static_cast<int>(act));
  auto& cache = engine_cache();
  auto it = cache.find(engine_key);
  if (it == cache.end()) {
    cudnnHandle_t h = device.libraries().cudnn;
    std::vector<ConvEngine> engines = ConvEngine::candidates(h, shape, max_conv_workspace, 4);
    std::optional<ConvEngine> chosen;
    if (!engines.empty()) try {
      std::size_t ws = s_->choice.workspace;
      for (auto const& e : engines) ws = std::max(ws, e.workspace_bytes());
      auto floats = [](auto... d) { return (static_cast<std::size_t>(d) * ...) * sizeof(float); };
      Scratch x(floats(shape.n, shape.c, shape.h, shape.w)), w(floats(shape.k, shape.c / std::max(shape.groups, 1), shape.r, shape.s)),
          y(floats(shape.n, shape.k, shape.out_h, shape.out_w)), b(floats(shape.k)), work(ws);
      std::int64_t inner = std::int64_t{shape.out_h} * shape.out_w;
      // A node's whole cost either way: the legacy call as run() makes it (fused or not) and its
      // bias_activation pass if any, against the plan and the pass applying bias and activation.
      auto after = [&](cudaStream_t st, SeparateEpilogue const& e) {
        if (e.needed())
          kernels::bias_activation(y.as<float>(), shape.n, shape.k, inner, e.bias ? b.as<float>() : nullptr,
                                   static_cast<kernels::ActCode>(static_cast<int>(e.act)), st);
      };
      std::optional<float> legacy = replay_ms([&](cudaStream_t st) {
        run(device, st, x.as<float>(), w.as<float>(), b.as<float>(), y.as<float>(), work.p);
        after(st, s_->epilogue.after);
      });
      std::optional<float> best = legacy;
      SeparateEpilogue engine_after{bias, act};
      for (auto const& e : engines) {
        std::optional<float> t = replay_ms([&](cudaStream_t st) {
          check(cudnnSetStream(h, st), "cudnnSetStream", s_->what);
          e.run(h, x.as<float>(), w.as<float>(), y.as<float>(), work.p);
          after(st, engine_after);
        });
        if (legacy && t && *t < *best) {
          best = t;
          chosen = e;
        }
      }
      (void)cudnnSetStream(h, nullptr);  // the timing streams are gone
      if (engines_setting() == "log")
        std::cerr << "[autograph cudnn] " << s_->what << (bias ? " +bias" : "") << " act " << static_cast<int>(act) << ": legacy algo "
                  << s_->choice.algo << (legacy ? " " + std::to_string(*legacy * 1000) + " us" : " (untimed)") << "; "
                  << (chosen ? chosen->name() + " " + std::to_string(*best * 1000) + " us, taken" : "no faster plan among " + std::to_string(engines.size()))
                  << "\n";
    } catch (CudaError const& e) {  // no scratch memory: the legacy algorithm stays
      chosen.reset();
      (void)cudnnSetStream(h, nullptr);
      if (engines_setting() == "log") std::cerr << "[autograph cudnn] " << s_->what << ": graph-API plans not timed: " << e.what() << "\n";
    }
    it = cache.emplace(engine_key, std::move(chosen)).first;
  }
  if (!it->second) return;
  s_->engine = it->second;
  s_->epilogue = ConvEpilogue{ConvEpilogue::Fused::no, false, {bias, act}, true};
  s_->choice.workspace = s_->engine->workspace_bytes();
}

ConvForward::~ConvForward() = default;
std::size_t ConvForward::workspace_bytes() const { return s_->choice.workspace; }
ConvEpilogue const& ConvForward::epilogue() const { return s_->epilogue; }

void ConvForward::run(Device& device, cudaStream_t stream, float const* x, float const* w, float const* bias, float* y, void* workspace) const {
  cudnnHandle_t h = device.libraries().cudnn;
  check(cudnnSetStream(h, stream), "cudnnSetStream", s_->what);
  if (s_->engine) {
    s_->engine->run(h, x, w, y, workspace);
    return;
  }
  float one = 1.f, zero = 0.f;
  if (s_->epilogue.fused != ConvEpilogue::Fused::no) {
    // y = act(1 * conv(x, w) + 0 * z + bias) with z = y: with alpha2 = 0 the side input
    // contributes nothing (the way TensorFlow passes "no side input" to this call).
    check(cudnnConvolutionBiasActivationForward(h, &one, s_->d.x.get(), x, s_->d.w.get(), w, s_->d.conv.get(),
                                                static_cast<cudnnConvolutionFwdAlgo_t>(s_->choice.algo), workspace, s_->choice.workspace,
                                                &zero, s_->d.y.get(), y, s_->bias.get(), bias, s_->activation.get(), s_->d.y.get(), y),
          "cudnnConvolutionBiasActivationForward", s_->what);
    return;
  }
  check(cudnnConvolutionForward(h, &one, s_->d.x.get(), x, s_->d.w.get(), w, s_->d.conv.get(),
                                static_cast<cudnnConvolutionFwdAlgo_t>(s_->choice.algo), workspace, s_->choice.workspace, &zero, s_->d.y.get(), y),
        "cudnnConvolutionForward", s_->what);
}

// ---- backward-data convolution (transposed convolution) ------------------------------------

struct ConvBackwardData::State {
  ConvDescriptors d;
  Choice choice;
  std::string what;
  State(ConvShape const& s, cudnnMathType_t m) : d(s, m) {}
};

ConvBackwardData::ConvBackwardData(Device& device, ConvShape const& shape, bool allow_tf32) {
  cudnnMathType_t math = allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH;
  s_ = std::make_unique<State>(shape, math);
  s_->what = "transposed convolution " + shape.key();
  std::string key = "bwd-data dev" + std::to_string(device.index()) + " " + shape.key() + (allow_tf32 ? " tf32" : " fp32");
  std::lock_guard lock(cache_mutex);
  auto& cache = algorithm_cache();
  if (auto it = cache.find(key); it != cache.end()) {
    s_->choice = it->second.fastest;
  } else {
    cudnnHandle_t h = device.libraries().cudnn;
    check(cudnnSetStream(h, nullptr), "cudnnSetStream", s_->what);
    int max_count = 0;
    check(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h, &max_count), "cudnnGetConvolutionBackwardDataAlgorithmMaxCount", s_->what);
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perf(static_cast<std::size_t>(std::max(max_count, 1)));
    int returned = 0;
    check(cudnnFindConvolutionBackwardDataAlgorithm(h, s_->d.w.get(), s_->d.y.get(), s_->d.conv.get(), s_->d.x.get(), max_count, &returned,
                                                    perf.data()),
          "cudnnFindConvolutionBackwardDataAlgorithm", s_->what);
    s_->choice = pick(perf.data(), returned, allow_tf32, s_->what);
    cache.emplace(key, Choices{s_->choice, std::nullopt});
  }
  check(cudnnSetConvolutionMathType(s_->d.conv.get(), s_->choice.math), "cudnnSetConvolutionMathType", s_->what);
  std::size_t bytes = 0;
  check(cudnnGetConvolutionBackwardDataWorkspaceSize(device.libraries().cudnn, s_->d.w.get(), s_->d.y.get(), s_->d.conv.get(), s_->d.x.get(),
                                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(s_->choice.algo), &bytes),
        "cudnnGetConvolutionBackwardDataWorkspaceSize", s_->what);
  s_->choice.workspace = std::max(bytes, s_->choice.workspace);
}
ConvBackwardData::~ConvBackwardData() = default;
std::size_t ConvBackwardData::workspace_bytes() const { return s_->choice.workspace; }

void ConvBackwardData::run(Device& device, cudaStream_t stream, float const* dy, float const* w, float* dx, void* workspace) const {
  cudnnHandle_t h = device.libraries().cudnn;
  check(cudnnSetStream(h, stream), "cudnnSetStream", s_->what);
  float one = 1.f, zero = 0.f;
  check(cudnnConvolutionBackwardData(h, &one, s_->d.w.get(), w, s_->d.y.get(), dy, s_->d.conv.get(),
                                     static_cast<cudnnConvolutionBwdDataAlgo_t>(s_->choice.algo), workspace, s_->choice.workspace, &zero,
                                     s_->d.x.get(), dx),
        "cudnnConvolutionBackwardData", s_->what);
}

// ---- cuBLASLt matrix products ----------------------------------------------------------------

namespace {
template <class T, cublasStatus_t (*Destroy)(T)>
struct LtDeleter {
  void operator()(T d) const {
    if (d) (void)Destroy(d);
  }
};
using MatmulDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, LtDeleter<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>>;
using LayoutDesc =
    std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LtDeleter<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>>;
using PreferenceDesc = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>,
                                       LtDeleter<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>>;

cublasLtEpilogue_t cublaslt_epilogue(GemmEpilogue::Fused f) {
  switch (f) {
    case GemmEpilogue::Fused::none: return CUBLASLT_EPILOGUE_DEFAULT;
    case GemmEpilogue::Fused::relu: return CUBLASLT_EPILOGUE_RELU;
    case GemmEpilogue::Fused::bias: return CUBLASLT_EPILOGUE_BIAS;
    case GemmEpilogue::Fused::relu_bias: return CUBLASLT_EPILOGUE_RELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

/// A column-major rows x cols matrix with leading dimension ld, `batch` of them `stride` apart.
LayoutDesc make_layout(std::int64_t rows, std::int64_t cols, std::int64_t ld, int batch, std::int64_t stride, std::string const& what) {
  cublasLtMatrixLayout_t l = nullptr;
  check(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld),
        "cublasLtMatrixLayoutCreate", what);
  LayoutDesc owned(l);
  if (batch > 1) {
    check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)), "cublasLtMatrixLayoutSetAttribute",
          what);
    check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
          "cublasLtMatrixLayoutSetAttribute", what);
  }
  return owned;
}
}  // namespace

struct Gemm::State {
  MatmulDesc op;
  bool bias = false;  // the epilogue reads a bias (set per run: CUBLASLT_MATMUL_DESC_BIAS_POINTER)
  std::mutex bias_mutex;  // the pointer is an attribute of `op`: set and call as one
  LayoutDesc a, b, c;  // in cuBLASLt's operand order (see the constructor)
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace = 0;
  std::string what;
};

// Row-major C[m,n] = A[m,k] B[k,n] is column-major C^T[n,m] = B^T[n,k] A^T[k,m], and a
// row-major matrix read column-major is its transpose: so cuBLASLt multiplies our B (as an
// n x k column-major matrix, ld n) by our A (k x m, ld k) into our C (n x m, ld n). No copies.
Gemm::Gemm(Device& device, GemmShape const& g, bool allow_tf32) : s_(std::make_unique<State>()) {
  s_->what = "matmul [" + std::to_string(g.m) + "x" + std::to_string(g.k) + "]x[" + std::to_string(g.k) + "x" + std::to_string(g.n) + "]" +
             (g.batch > 1 ? " batch " + std::to_string(g.batch) : "");
  cublasLtMatmulDesc_t op = nullptr;
  check(cublasLtMatmulDescCreate(&op, allow_tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate",
        s_->what);
  s_->op.reset(op);
  if (g.epilogue != GemmEpilogue::Fused::none) {
    // In cuBLASLt's terms the bias runs along the rows of its D = our C^T (n x m): one per
    // column of our c, a linear layer's bias.
    cublasLtEpilogue_t epilogue = cublaslt_epilogue(g.epilogue);
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)), "cublasLtMatmulDescSetAttribute",
          s_->what);
    s_->bias = g.epilogue == GemmEpilogue::Fused::bias || g.epilogue == GemmEpilogue::Fused::relu_bias;
  }
  s_->a = make_layout(g.n, g.k, g.n, g.batch, g.stride_b, s_->what);
  s_->b = make_layout(g.k, g.m, g.k, g.batch, g.stride_a, s_->what);
  s_->c = make_layout(g.n, g.m, g.n, g.batch, g.stride_c, s_->what);

  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate", s_->what);
  PreferenceDesc owned_pref(pref);
  std::size_t max_ws = max_gemm_workspace;
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &max_ws, sizeof(max_ws)),
        "cublasLtMatmulPreferenceSetAttribute", s_->what);
  std::uint32_t align_lt_a = g.align_b, align_lt_b = g.align_a, align_c = g.align_c;
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_lt_a, sizeof(align_lt_a)),
        "cublasLtMatmulPreferenceSetAttribute", s_->what);
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_lt_b, sizeof(align_lt_b)),
        "cublasLtMatmulPreferenceSetAttribute", s_->what);
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof(align_c)),
        "cublasLtMatmulPreferenceSetAttribute", s_->what);
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof(align_c)),
        "cublasLtMatmulPreferenceSetAttribute", s_->what);

  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  check(cublasLtMatmulAlgoGetHeuristic(device.libraries().cublaslt, op, s_->a.get(), s_->b.get(), s_->c.get(), s_->c.get(), pref, 1, &result,
                                       &returned),
        "cublasLtMatmulAlgoGetHeuristic", s_->what);
  if (returned == 0) throw CudaError(s_->what + ": cuBLASLt offers no algorithm for this shape and alignment");
  s_->algo = result.algo;
  s_->workspace = result.workspaceSize;
}
Gemm::~Gemm() = default;
std::size_t Gemm::workspace_bytes() const { return s_->workspace; }

void Gemm::run(Device& device, cudaStream_t stream, float const* a, float const* b, float const* bias, float* c, void* workspace) const {
  float one = 1.f, zero = 0.f;
  std::unique_lock<std::mutex> lock;
  if (s_->bias) {  // an attribute of the descriptor, not an argument: set before every call
    lock = std::unique_lock(s_->bias_mutex);
    check(cublasLtMatmulDescSetAttribute(s_->op.get(), CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
          "cublasLtMatmulDescSetAttribute", s_->what);
  }
  check(cublasLtMatmul(device.libraries().cublaslt, s_->op.get(), &one, b, s_->a.get(), a, s_->b.get(), &zero, c, s_->c.get(), c, s_->c.get(),
                       &s_->algo, workspace, s_->workspace, stream),
        "cublasLtMatmul", s_->what);
}

void forget_stream(Device& device, cudaStream_t stream) noexcept {
  cudnnHandle_t h = device.libraries().cudnn;
  cudaStream_t bound = nullptr;
  if (h && stream && cudnnGetStream(h, &bound) == CUDNN_STATUS_SUCCESS && bound == stream) (void)cudnnSetStream(h, nullptr);
}

std::string cudnn_version() {
  std::size_t v = cudnnGetVersion();  // major * 10000 + minor * 100 + patch (cuDNN 9)
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

std::string cublas_version() {
  std::size_t v = cublasLtGetVersion();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." + std::to_string(v % 100);
}

}  // namespace autograph::cuda::dnn
