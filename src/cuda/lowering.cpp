// LoweringBuilder and Lowering: where each value lives, what each node launches, and which
// Concat inputs are written in place.
#include <algorithm>
#include <bit>
#include <cstring>

#include "autograph/cuda/device.hpp"
#include "autograph/cuda/lowered_graph.hpp"

namespace autograph::cuda {

namespace detail {

struct NodeState {
  LoweredGraph* graph = nullptr;
  Device* device = nullptr;
  LowerOptions const* options = nullptr;
  LoweredGraph::Node node;
  std::vector<TensorDesc> in, out;
};

}  // namespace detail

using detail::NodeState;
using Kind = LoweredGraph::ValueInfo::Kind;

namespace {

/// Alignment every fresh buffer is guaranteed: arena buffers are 256-byte aligned, and a
/// buffer placed into a Concat's output lands on a 16-byte boundary at least (see finish()).
constexpr std::size_t buffer_alignment = 16;

}  // namespace

// ---- Lowering --------------------------------------------------------------------------------

std::span<TensorDesc const> Lowering::inputs() const { return s_->in; }
std::span<TensorDesc const> Lowering::outputs() const { return s_->out; }
std::string const& Lowering::label() const { return s_->node.label; }
Device& Lowering::device() const {
  if (!s_->device) throw CudaError(label() + ": lowering this operator needs a GPU (this graph is lowered for planning only)");
  return *s_->device;
}
bool Lowering::planning_only() const { return s_->device == nullptr; }
bool Lowering::allow_tf32() const { return s_->options->allow_tf32; }
bool Lowering::allow_views() const { return s_->options->views; }
bool Lowering::launched() const { return s_->node.kernel; }

std::size_t Lowering::input_alignment(std::size_t i) const {
  if (i >= s_->node.inputs.size()) reject("input_alignment(" + std::to_string(i) + "): no such input");
  return s_->graph->values[s_->node.inputs[i]].alignment;
}

void Lowering::view(std::size_t out, std::size_t in, std::int64_t offset) {
  if (out >= s_->out.size() || in >= s_->in.size())
    throw CudaError(label() + ": view(" + std::to_string(out) + ", " + std::to_string(in) + "): no such output or input");
  auto& value = s_->graph->values[s_->node.outputs[out]];
  if (value.kind == Kind::empty) return;
  if (offset < 0 || offset + s_->out[out].numel() > s_->in[in].numel())
    throw CudaError(label() + ": output " + std::to_string(out) + " (" + s_->out[out].to_string() + ") as a view of input " + std::to_string(in) +
                    " (" + s_->in[in].to_string() + ") at offset " + std::to_string(offset) + " runs past the input");
  s_->graph->make_view(s_->node.outputs[out], s_->node.inputs[in], offset);
}

void Lowering::place_input(std::size_t in, std::size_t out, std::int64_t offset) {
  if (out >= s_->out.size() || in >= s_->in.size())
    throw CudaError(label() + ": place_input(" + std::to_string(in) + ", " + std::to_string(out) + "): no such input or output");
  if (offset < 0 || offset + s_->in[in].numel() > s_->out[out].numel())
    throw CudaError(label() + ": input " + std::to_string(in) + " placed at offset " + std::to_string(offset) + " runs past output " +
                    std::to_string(out));
  s_->node.placeable.push_back({static_cast<std::uint32_t>(in), static_cast<std::uint32_t>(out), offset});
}

void Lowering::require_output_alignment(std::size_t out, std::size_t bytes) {
  if (out >= s_->out.size()) throw CudaError(label() + ": require_output_alignment(" + std::to_string(out) + "): no such output");
  if (!std::has_single_bit(bytes) || bytes > 256)
    throw CudaError(label() + ": require_output_alignment(" + std::to_string(out) + ", " + std::to_string(bytes) +
                    "): the alignment must be a power of two of at most 256 bytes");
  auto& need = s_->node.output_alignment;
  need.resize(s_->out.size(), 0);
  need[out] = std::max(need[out], bytes);
}

std::size_t Lowering::workspace(std::size_t bytes) {
  s_->node.workspaces.push_back(bytes);
  return s_->node.workspaces.size() - 1;
}

std::size_t Lowering::upload(void const* data, std::size_t bytes) {
  std::shared_ptr<DeviceBuffer> buffer;
  if (s_->device) {
    buffer = std::make_shared<DeviceBuffer>(bytes, label() + " (uploaded table)");
    if (bytes > 0) check(cudaMemcpy(buffer->get(), data, bytes, cudaMemcpyHostToDevice), "cudaMemcpy", label());
  } else {
    auto const* b = static_cast<std::byte const*>(data);
    s_->node.host_uploads.emplace_back(b, b + bytes);
  }
  s_->node.uploads.push_back(std::move(buffer));
  return s_->node.uploads.size() - 1;
}

void Lowering::launch(std::string what, LaunchFn f) { s_->node.launches.push_back({std::move(what), std::move(f)}); }

void Lowering::reject(std::string_view why) const {
  throw CudaError(label() + ": unsupported on the CUDA runtime: " + std::string(why));
}

// ---- LoweringBuilder --------------------------------------------------------------------------

namespace detail {

LoweringBuilder::LoweringBuilder(Device* device, LowerOptions const& options, ConstantCache* cache, std::size_t id_bound)
    : device_(device), options_(options), cache_(cache), graph_(std::make_shared<LoweredGraph>()) {
  if (device_) device_->make_current();
  graph_->reset(id_bound);
  graph_->device = device;
}
LoweringBuilder::~LoweringBuilder() = default;

void LoweringBuilder::add_input(NodeId id, std::string label, TensorDesc const& desc) {
  if (desc.dtype != DType::float32)
    throw CudaError("input '" + label + "' is " + desc.to_string() + ": unsupported on the CUDA runtime: only float32 tensors");
  graph_->input_buffers.push_back(device_ ? std::make_shared<DeviceBuffer>(static_cast<std::size_t>(desc.bytes()), "input '" + label + "'") : nullptr);
  graph_->add_input(id, std::move(label), desc);
}

void LoweringBuilder::add_constant(NodeId id, TensorDesc const& desc, bool read, std::uint64_t key, std::function<Tensor()> const& make,
                                   std::vector<std::shared_ptr<void const>> keepalive) {
  if (read && desc.dtype != DType::float32)
    throw CudaError("constant " + desc.to_string() + " of node " + std::to_string(id) + ": unsupported on the CUDA runtime: only float32 tensors");
  auto v = graph_->add_constant(id, desc, read);
  if (graph_->values[v].kind != Kind::constant) return;  // not read, or no elements: nothing to upload
  if (!device_) {  // planning only: keep the value on the host
    graph_->host_constants.push_back(make());
    graph_->constants.push_back(nullptr);
    return;
  }
  std::shared_ptr<DeviceBuffer const> buffer = cache_ ? cache_->find(key) : nullptr;
  if (!buffer || buffer->bytes() != static_cast<std::size_t>(desc.bytes())) {
    Tensor t = make();
    if (t.numel() != desc.numel())
      throw CudaError("constant of node " + std::to_string(id) + " has " + std::to_string(t.numel()) + " values, expected " +
                      std::to_string(desc.numel()));
    auto fresh = std::make_shared<DeviceBuffer>(static_cast<std::size_t>(desc.bytes()), "constant of node " + std::to_string(id));
    check(cudaMemcpy(fresh->get(), t.ptr(), static_cast<std::size_t>(desc.bytes()), cudaMemcpyHostToDevice), "cudaMemcpy",
          "uploading the constant of node " + std::to_string(id));
    buffer = fresh;
    if (cache_) cache_->insert(key, buffer, std::move(keepalive));
  }
  graph_->constants.push_back(std::move(buffer));
}

std::optional<Lowering> LoweringBuilder::begin_node(NodeId id, std::string label, bool kernel, std::span<Value const> inputs,
                                                    std::span<TensorDesc const> outputs) {
  current_ = std::make_unique<NodeState>();
  NodeState& s = *current_;
  s.graph = graph_.get();
  s.device = device_;
  s.options = &options_;
  s.node.id = id;
  s.node.label = std::move(label);
  s.node.kernel = kernel;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Value in = inputs[i];
    auto const& ports = graph_->node_values.at(in.node);
    if (in.port >= ports.size())
      throw CudaError(s.node.label + ": input " + std::to_string(i) + " was not lowered (node " + std::to_string(in.node) + " port " +
                      std::to_string(in.port) + ")");
    s.node.inputs.push_back(ports[in.port]);
    s.in.push_back(graph_->values[ports[in.port]].desc);
  }
  s.node.placed.assign(inputs.size(), 0);
  s.out.assign(outputs.begin(), outputs.end());
  Lowering l(s);
  for (auto const& d : s.in)
    if (d.dtype != DType::float32) l.reject("input " + d.to_string() + ": only float32 tensors");
  for (auto const& d : s.out)
    if (d.dtype != DType::float32) l.reject("output " + d.to_string() + ": only float32 tensors");
  bool any_elements = false;
  for (auto const& d : s.out) {
    auto v = graph_->add_value(id, d, Kind::buffer);
    graph_->values[v].alignment = buffer_alignment;
    any_elements = any_elements || d.numel() > 0;
    s.node.outputs.push_back(v);
  }
  if (!any_elements) {  // nothing to compute: the node stays (a schedule may launch it) with no launches
    end_node();
    return std::nullopt;
  }
  return l;
}

void LoweringBuilder::end_node() {
  NodeState& s = *current_;
  bool writes = false;
  for (std::uint32_t v : s.node.outputs) writes = writes || graph_->values[v].kind == Kind::buffer;
  if (writes && s.node.launches.empty())
    throw CudaError(s.node.label + ": its CUDA kernel neither launches anything nor declares its outputs as views");
  if (!s.node.kernel && !s.node.launches.empty())
    throw CudaError(s.node.label + ": runs no kernel in the schedule's sense (it moves no bytes), so no schedule launches it, "
                    "but its CUDA kernel registers launches; it must declare its outputs as views");
  graph_->add_node(std::move(s.node));
  current_.reset();
}

void LoweringBuilder::place_concat_inputs() {
  auto& values = graph_->values;
  // In-place concatenation: an input written by its producer's launches into a fresh buffer
  // is redirected into the Concat's output, when that output is itself a fresh buffer and
  // the offset keeps the alignment the input needs: 16 bytes (which every buffer promises;
  // see buffer_alignment), or more where its writer asked (require_output_alignment: cuDNN
  // runs the algorithm it chose on 256-byte aligned buffers, and a 16-byte aligned slice
  // need not suit it). A placed value's need passes to the Concat's output, which may be
  // placed in turn; nodes come in topological order, so an inner Concat is decided first.
  // Placement only ever points a value at a value produced later, so it cannot form cycles.
  if (options_.in_place_concat) {
    std::vector<std::size_t> need(values.size(), buffer_alignment);
    for (auto const& node : graph_->nodes)
      for (std::size_t o = 0; o < node.output_alignment.size(); ++o)
        need[node.outputs[o]] = std::max(need[node.outputs[o]], node.output_alignment[o]);
    for (auto& node : graph_->nodes) {
      for (auto const& p : node.placeable) {
        std::uint32_t v = node.inputs[p.input], out = node.outputs[p.output];
        auto& value = values[v];
        bool fresh = value.kind == Kind::buffer && value.parent == LoweredGraph::npos && value.producer != node.id;
        bool aligned = (static_cast<std::size_t>(p.offset) * sizeof(float)) % need[v] == 0;
        if (!fresh || !aligned || values[out].kind != Kind::buffer) continue;
        value.parent = out;
        value.offset = p.offset;
        node.placed[p.input] = 1;
        need[out] = std::max(need[out], need[v]);
      }
    }
  }
}

}  // namespace detail
}  // namespace autograph::cuda
