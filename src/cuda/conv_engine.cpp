// cuDNN graph-API convolutions (see conv_engine.hpp). The calls follow the cuDNN 9 backend API
// reference (cudnn_graph.h): tensors, a convolution descriptor and a conv-fprop operation make
// an operation graph; an engine-heuristics descriptor lists engine configurations; each one
// finalized with the handle is an execution plan; a variant pack binds pointers per launch.
#include "conv_engine.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "autograph/cuda/libraries.hpp"

namespace autograph::cuda::dnn {
namespace {

/// One backend descriptor, destroyed with its owner.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(cudnnBackendDescriptorType_t type) {
    if (cudnnBackendCreateDescriptor(type, &d_) != CUDNN_STATUS_SUCCESS) d_ = nullptr;
  }
  Descriptor(Descriptor&& o) noexcept : d_(std::exchange(o.d_, nullptr)) {}
  Descriptor& operator=(Descriptor&& o) noexcept {
    std::swap(d_, o.d_);
    return *this;
  }
  Descriptor(Descriptor const&) = delete;
  Descriptor& operator=(Descriptor const&) = delete;
  ~Descriptor() {
    if (d_) (void)cudnnBackendDestroyDescriptor(d_);
  }
  cudnnBackendDescriptor_t get() const { return d_; }
  explicit operator bool() const { return d_ != nullptr; }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

/// A step of building a plan failed: the shape is not offered by this engine (or at all).
struct Unsupported {};

void ok(cudnnStatus_t s) {
  if (s != CUDNN_STATUS_SUCCESS) throw Unsupported{};
}
template <class T>
void set(Descriptor const& d, cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, std::int64_t count, T const* values) {
  ok(cudnnBackendSetAttribute(d.get(), name, type, count, values));
}
void set(Descriptor const& d, cudnnBackendAttributeName_t name, Descriptor const& value) {
  cudnnBackendDescriptor_t v = value.get();
  ok(cudnnBackendSetAttribute(d.get(), name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &v));
}
Descriptor make(cudnnBackendDescriptorType_t type) {
  Descriptor d(type);
  if (!d) throw Unsupported{};
  return d;
}

// The operands' unique ids in the operation graph and the variant pack.
constexpr std::int64_t x_uid = 'x', w_uid = 'w', y_uid = 'y';
// What the lowering guarantees of every operand's address (lower_ops.cpp realigns the rest).
constexpr std::int64_t operand_alignment = 16;

Descriptor tensor(std::int64_t uid, std::array<std::int64_t, 4> dims) {
  Descriptor t = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
  std::array<std::int64_t, 4> strides{dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1};  // packed NCHW
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  set(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
  set(t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims.data());
  set(t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides.data());
  set(t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
  set(t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &operand_alignment);
  ok(cudnnBackendFinalize(t.get()));
  return t;
}

/// Whether the engine of `cfg` compiles its kernel at run time.
bool compiles_at_run_time(Descriptor const& cfg) {
  Descriptor engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  cudnnBackendDescriptor_t e = engine.get();
  std::int64_t count = 0;
  ok(cudnnBackendGetAttribute(cfg.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &e));
  std::array<cudnnBackendBehaviorNote_t, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT> notes{};
  std::int64_t n = 0;
  ok(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &n,
                              notes.data()));
  for (std::int64_t i = 0; i < n && i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; ++i)
    if (notes[static_cast<std::size_t>(i)] == CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION) return true;
  return false;
}

std::int64_t engine_index(Descriptor const& cfg) {
  try {
    Descriptor engine = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    cudnnBackendDescriptor_t e = engine.get();
    std::int64_t count = 0, index = -1;
    ok(cudnnBackendGetAttribute(cfg.get(), CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &count, &e));
    ok(cudnnBackendGetAttribute(engine.get(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &count, &index));
    return index;
  } catch (Unsupported const&) {
    return -1;
  }
}

/// The operation graph every plan of one shape is made from; the plans keep it alive.
struct OperationGraph {
  Descriptor x, w, y, conv, op, graph;
};

}  // namespace

struct ConvEngine::Plan {
  std::shared_ptr<OperationGraph const> graph;
  Descriptor cfg, plan;
  std::size_t workspace = 0;
  std::string name;
};

std::vector<ConvEngine> ConvEngine::candidates(cudnnHandle_t h, ConvShape const& s, std::size_t max_workspace, int max_plans) {
  std::vector<ConvEngine> out;
  auto shared = std::make_shared<OperationGraph>();
  Descriptor heur;
  std::vector<Descriptor> cfgs;
  try {
    shared->x = tensor(x_uid, {s.n, s.c, s.h, s.w});
    shared->w = tensor(w_uid, {s.k, s.c / s.groups, s.r, s.s});  // groups: cuDNN reads them off c / w's second dimension
    shared->y = tensor(y_uid, {s.n, s.k, s.out_h, s.out_w});
    shared->conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    std::int64_t dims = 2;
    std::array<std::int64_t, 2> pad{s.pad_h, s.pad_w}, stride{s.stride_h, s.stride_w}, dilation{s.dilation_h, s.dilation_w};
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, dilation.data());
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, stride.data());
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
    set(shared->conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad.data());
    ok(cudnnBackendFinalize(shared->conv.get()));

    shared->op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    float alpha = 1.f, beta = 0.f;  // y = conv(x, w); FP32 data takes float scaling factors
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, shared->x);
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, shared->w);
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, shared->y);
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, shared->conv);
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    set(shared->op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    ok(cudnnBackendFinalize(shared->op.get()));

    shared->graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    cudnnBackendDescriptor_t ops = shared->op.get();
    set(shared->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &ops);
    set(shared->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    ok(cudnnBackendFinalize(shared->graph.get()));

    // Heuristics mode A: cuDNN's fast, shape-aware ranking (the mode cudnn_frontend and
    // PyTorch's cuDNN v8 path start from).
    heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    cudnnBackendHeurMode_t heur_mode = CUDNN_HEUR_MODE_A;
    set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, shared->graph);
    set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &heur_mode);
    ok(cudnnBackendFinalize(heur.get()));
    std::int64_t count = 0;
    ok(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, nullptr));
    if (count <= 0) return out;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (std::int64_t i = 0; i < count; ++i) {
      cfgs.push_back(make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
      raw.push_back(cfgs.back().get());
    }
    std::int64_t returned = 0;
    ok(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &returned, raw.data()));
    cfgs.resize(static_cast<std::size_t>(std::min(returned, count)));
  } catch (Unsupported const&) {
    return out;
  }

  for (std::size_t rank = 0; rank < cfgs.size() && static_cast<int>(out.size()) < max_plans; ++rank) {
    try {
      if (compiles_at_run_time(cfgs[rank])) continue;
      auto p = std::make_shared<Plan>();
      p->plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      set(p->plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
      set(p->plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, cfgs[rank]);
      ok(cudnnBackendFinalize(p->plan.get()));
      std::int64_t bytes = 0, n = 0;
      ok(cudnnBackendGetAttribute(p->plan.get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &bytes));
      if (bytes < 0 || static_cast<std::size_t>(bytes) > max_workspace) continue;
      p->workspace = static_cast<std::size_t>(bytes);
      p->name = "engine " + std::to_string(engine_index(cfgs[rank])) + " (heuristics rank " + std::to_string(rank) + ")";
      p->cfg = std::move(cfgs[rank]);
      p->graph = shared;
      ConvEngine e;
      e.plan_ = std::move(p);
      out.push_back(std::move(e));
    } catch (Unsupported const&) {
      continue;  // this engine does not take this shape: the next one may
    }
  }
  return out;
}

std::size_t ConvEngine::workspace_bytes() const { return plan_->workspace; }
std::string const& ConvEngine::name() const { return plan_->name; }

void ConvEngine::run(cudnnHandle_t h, float const* x, float const* w, float* y, void* workspace) const {
  Descriptor pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
  if (!pack) throw CudaError("cudnnBackendCreateDescriptor(VARIANT_PACK) failed for " + plan_->name);
  std::array<void*, 3> pointers{const_cast<float*>(x), const_cast<float*>(w), y};  // cuDNN's variant pack takes void*
  std::array<std::int64_t, 3> uids{x_uid, w_uid, y_uid};
  check(cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, pointers.data()),
        "cudnnBackendSetAttribute(VARIANT_PACK_DATA_POINTERS)", plan_->name);
  check(cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids.data()),
        "cudnnBackendSetAttribute(VARIANT_PACK_UNIQUE_IDS)", plan_->name);
  check(cudnnBackendSetAttribute(pack.get(), CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace),
        "cudnnBackendSetAttribute(VARIANT_PACK_WORKSPACE)", plan_->name);
  check(cudnnBackendFinalize(pack.get()), "cudnnBackendFinalize(VARIANT_PACK)", plan_->name);
  check(cudnnBackendExecute(h, plan_->plan.get(), pack.get()), "cudnnBackendExecute", plan_->name);
}

}  // namespace autograph::cuda::dnn
