// How the CUDA runtime's backends (autograph/cuda/backends/) lower the groups they matched:
// cuDNN's and cuBLASLt's through the runtime's own lowerings of Conv2D and MatMul (their
// activation fused), cuBLASLt's pointwise convolution as a strided batched GEMM, our kernels'
// depthwise convolution and elementwise chains through the kernels of src/cuda/own_backend.cu.
#include <algorithm>
#include <climits>
#include <memory>

#include "autograph/cuda/backends/cublas_lt.hpp"
#include "autograph/cuda/backends/cudnn.hpp"
#include "autograph/cuda/backends/own_kernels.hpp"
#include "autograph/cuda/device.hpp"
#include "dnn.hpp"

namespace autograph::cuda::backends {
namespace {

namespace kn = kernels;

kn::ActCode act_code(Activation a) { return static_cast<kn::ActCode>(static_cast<int>(a)); }

/// The group's one op, or a group of an op producing the value a Relu reads: that op with its
/// activation set to relu (`Op` without an activation of its own: Conv2D or MatMul).
template <class Op>
std::optional<AnyOp> with_relu(Graph<BuiltinOps> const& group) {
  auto ops = group_ops(group);
  if (ops.empty() || !group[ops[0]].op.is<Op>()) return std::nullopt;
  Op op = *group[ops[0]].op.get_if<Op>();
  if (ops.size() == 2) {
    if (!group[ops[1]].op.is<Relu>() || op.act != Activation::none) return std::nullopt;
    op.act = Activation::relu;
  } else if (ops.size() != 1) {
    return std::nullopt;
  }
  return AnyOp{op};
}

/// The alignment (bytes, at most 256) of a pointer moved by `elements` floats.
std::uint32_t offset_alignment(std::int64_t elements) {
  if (elements == 0) return 256;
  auto bytes = static_cast<std::uint64_t>(elements) * sizeof(float);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(256, bytes & (~bytes + 1)));
}

}  // namespace

// ---- cuDNN ----------------------------------------------------------------------------------

std::optional<AnyOp> Cudnn::as_op(Graph<BuiltinOps> const& group) const {
  auto ops = group_ops(group);
  if (ops.size() == 1 && group[ops[0]].op.is<ConvTranspose2D>()) return group[ops[0]].op;
  return with_relu<Conv2D>(group);
}

void Cudnn::lower(Graph<BuiltinOps> const& group, Lowering& l) const {
  auto op = as_op(group);
  if (!op) l.reject("cuDNN runs a convolution (with a following ReLU fused), not this group");
  lower_builtin(*op, l);
}

// ---- cuBLASLt -------------------------------------------------------------------------------

std::optional<AnyOp> CublasLt::as_op(Graph<BuiltinOps> const& group) const { return with_relu<MatMul>(group); }

void CublasLt::lower(Graph<BuiltinOps> const& group, Lowering& l) const {
  if (auto op = as_op(group)) return lower_builtin(*op, l);
  auto ops = group_ops(group);
  bool with_relu = ops.size() == 2 && group[ops[1]].op.is<Relu>();
  if (ops.empty() || ops.size() > 2 || !pointwise_conv(group, ops[0]) || (ops.size() == 2 && !with_relu))
    l.reject("cuBLASLt runs a matrix product or a pointwise convolution (with a following ReLU), not this group");
  Conv2D conv = *group[ops[0]].op.get_if<Conv2D>();
  if (with_relu) {
    if (conv.act != Activation::none) l.reject("a pointwise convolution with an activation of its own, then a ReLU");
    conv.act = Activation::relu;
  }
  Shape const& x = l.inputs()[0].shape;
  Shape const& y = l.outputs()[0].shape;
  bool bias = l.inputs().size() == 3;
  std::int64_t n = x[0], c = x[1], k = y[1], pixels = x[2] * x[3];
  if (n > INT_MAX) l.reject("a batch of " + std::to_string(n) + " images exceeds cuBLASLt's 32-bit count");
  if (c == 0) l.reject("a convolution with no input channels");
  // Row-major c[m, n] = a[m, k] b[k, n] per image: a = w[K, C] (shared, stride 0), b = x[C, H*W], c = y[K, H*W].
  dnn::GemmShape g;
  g.m = k;
  g.n = pixels;
  g.k = c;
  g.batch = static_cast<int>(n);
  g.stride_a = 0;
  g.stride_b = c * pixels;
  g.stride_c = k * pixels;
  auto align = [&](std::size_t base, std::int64_t stride) {
    return std::min<std::uint32_t>(static_cast<std::uint32_t>(std::min<std::size_t>(base, 256)), offset_alignment(g.batch > 1 ? stride : 0));
  };
  g.align_a = align(l.input_alignment(1), 0);
  g.align_b = align(l.input_alignment(0), g.stride_b);
  g.align_c = align(16, g.stride_c);
  // cuBLASLt's bias epilogue adds one value per column (per pixel here), so only a ReLU
  // without a bias goes into the epilogue; a bias and any other activation run after it.
  bool relu_in_epilogue = !bias && conv.act == Activation::relu;
  g.epilogue = relu_in_epilogue ? GemmEpilogue::Fused::relu : GemmEpilogue::Fused::none;
  kn::ActCode after = relu_in_epilogue ? kn::ActCode::none : act_code(conv.act);
  std::shared_ptr<dnn::Gemm> plan;
  std::size_t ws = 0;
  if (l.planning_only()) {  // as lower(MatMul): the most workspace cuBLASLt's heuristic may ask for, and no plan
    ws = l.workspace(dnn::max_gemm_workspace);
  } else {
    plan = std::make_shared<dnn::Gemm>(l.device(), g, l.allow_tf32());
    ws = l.workspace(plan->workspace_bytes());
  }
  l.launch(std::string(gemm_launch), [=](LaunchArgs const& a) {
    if (!plan) throw CudaError(std::string(gemm_launch) + ": this pointwise convolution was lowered for planning only (no GPU); it cannot be launched");
    plan->run(*a.device, a.stream, a.in[1], a.in[0], nullptr, a.out[0], a.workspace[ws]);
  });
  if (bias || after != kn::ActCode::none)
    l.launch(std::string(bias_activation_launch),
             [=](LaunchArgs const& a) { kn::bias_activation(a.out[0], n, k, pixels, bias ? a.in[2] : nullptr, after, a.stream); });
}

// ---- our kernels ----------------------------------------------------------------------------

std::optional<AnyOp> OwnCudaKernels::as_op(Graph<BuiltinOps> const& group) const {
  auto ops = group_ops(group);
  if (ops.size() != 1 || detail::depthwise_conv(group, ops[0])) return std::nullopt;
  auto const& op = group[ops[0]].op;
  if (op.is<Conv2D>() || op.is<ConvTranspose2D>() || op.is<MatMul>()) return std::nullopt;
  return op;
}

namespace {

void lower_depthwise(Conv2D const& op, Lowering& l) {
  Shape const& x = l.inputs()[0].shape;
  Shape const& w = l.inputs()[1].shape;
  Shape const& y = l.outputs()[0].shape;
  kn::DepthwiseLayout d;
  d.n = x[0];
  d.channels = x[1];
  d.multiplier = w[0] / x[1];
  d.h = x[2];
  d.w = x[3];
  d.out_h = y[2];
  d.out_w = y[3];
  d.kernel_h = w[2];
  d.kernel_w = w[3];
  d.stride_h = op.stride[0];
  d.stride_w = op.stride[1];
  d.dilation_h = op.dilation[0];
  d.dilation_w = op.dilation[1];
  d.pad_top = op.pad[0];
  d.pad_left = op.pad[1];
  d.act = act_code(op.act);
  bool bias = l.inputs().size() == 3;
  l.launch("depthwise_conv2d kernel",
           [=](LaunchArgs const& a) { kn::depthwise_conv2d(d, a.in[0], a.in[1], bias ? a.in[2] : nullptr, a.out[0], a.stream); });
}

/// The chain's program: its ops in topological order, each a step writing the next slot.
void lower_chain(Graph<BuiltinOps> const& group, std::vector<NodeId> const& ops, Lowering& l) {
  auto boundary = group.inputs();
  kn::ChainProgram p;
  if (boundary.size() > static_cast<std::size_t>(kn::max_chain_inputs) || ops.size() > static_cast<std::size_t>(kn::max_chain_steps))
    l.reject("an elementwise chain of " + std::to_string(ops.size()) + " ops reading " + std::to_string(boundary.size()) +
             " tensors (the kernel takes at most " + std::to_string(kn::max_chain_steps) + " and " + std::to_string(kn::max_chain_inputs) + ")");
  if (group.outputs().size() != 1 || group.outputs()[0].node != ops.back())
    l.reject("an elementwise chain must write one value, its last op's");
  p.inputs = static_cast<int>(boundary.size());
  p.steps = static_cast<int>(ops.size());
  Shape const& out = l.outputs()[0].shape;
  p.n = out.numel();
  std::vector<int> slot(group.id_bound(), -1);
  for (std::size_t i = 0; i < boundary.size(); ++i) slot[boundary[i]] = static_cast<int>(i);
  auto operand = [&](Value v) {
    if (slot[v.node] < 0) l.reject("an elementwise chain op reads a value outside the chain that is not one of its inputs");
    return slot[v.node];
  };
  for (std::size_t s = 0; s < ops.size(); ++s) {
    auto const& node = group[ops[s]];
    kn::ChainStep& st = p.step[s];
    if (auto const* sc = node.op.get_if<Scale>()) {
      st.kind = kn::ChainStep::Kind::unary;
      st.code = static_cast<int>(kn::UnaryCode::scale);
      st.alpha = sc->scale;
      st.beta = sc->shift;
      st.a = operand(node.inputs[0]);
    } else if (auto const* bn = node.op.get_if<BatchNorm>()) {
      st.kind = kn::ChainStep::Kind::batch_norm;
      st.alpha = bn->epsilon;
      st.a = operand(node.inputs[0]);
      for (int k = 0; k < 4; ++k) {
        int in = operand(node.inputs[static_cast<std::size_t>(k) + 1]);
        if (in >= p.inputs) l.reject("a BatchNorm in a chain must read its parameters from outside the chain");
        st.params[k] = in;
        p.per_channel[in] = true;
      }
      Shape const& x = node.outputs[0].shape;
      p.channels = x[1];
      p.inner = x.numel() / std::max<std::int64_t>(1, x[0] * x[1]);
    } else {
      bool ok = visit_op<BuiltinOps>(node.op, [&]<class O>(O const& o) {
        if constexpr (detail::is_unary_op<O>) {
          st.kind = kn::ChainStep::Kind::unary;
          st.code = static_cast<int>(O::kind);
          st.alpha = o.alpha;
          st.beta = o.beta;
          st.a = operand(node.inputs[0]);
          return true;
        } else if constexpr (detail::is_binary_op<O>) {
          st.kind = kn::ChainStep::Kind::binary;
          st.code = static_cast<int>(O::kind);
          st.a = operand(node.inputs[0]);
          st.b = operand(node.inputs[1]);
          return true;
        } else {
          return false;
        }
      });
      if (!ok) l.reject(group.label(ops[s]) + " is not an op an elementwise chain runs");
    }
    if (node.outputs[0].shape != out) l.reject("an elementwise chain's ops must all have its output's shape");
    slot[ops[s]] = p.inputs + static_cast<int>(s);
  }
  // A per-channel input read per element too (a BatchNorm parameter also added to x) cannot be both.
  for (std::size_t s = 0; s < ops.size(); ++s) {
    auto const& st = p.step[s];
    if (st.a < p.inputs && p.per_channel[st.a]) l.reject("a chain input read both per channel and per element");
    if (st.kind == kn::ChainStep::Kind::binary && st.b < p.inputs && p.per_channel[st.b]) l.reject("a chain input read both per channel and per element");
  }
  l.launch("elementwise_chain kernel", [=](LaunchArgs const& a) {
    kn::ChainInputs in;
    for (int k = 0; k < p.inputs; ++k) in.ptr[k] = a.in[static_cast<std::size_t>(k)];
    kn::elementwise_chain(p, in, a.out[0], a.stream);
  });
}

}  // namespace

void OwnCudaKernels::lower(Graph<BuiltinOps> const& group, Lowering& l) const {
  if (auto op = as_op(group)) return lower_builtin(*op, l);
  auto ops = group_ops(group);
  if (ops.size() == 1 && detail::depthwise_conv(group, ops[0])) return lower_depthwise(*group[ops[0]].op.get_if<Conv2D>(), l);
  if (!ops.empty() && std::ranges::all_of(ops, [&](NodeId n) { return detail::chain_step_op(group[n].op); })) return lower_chain(group, ops, l);
  l.reject("our kernels run one op, an elementwise chain or a depthwise convolution, not this group");
}

}  // namespace autograph::cuda::backends
