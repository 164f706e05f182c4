// GraphExecutable: arena planning, stream/event mapping, CUDA graph capture and replay.
#include "autograph/cuda/executable.hpp"

#include <algorithm>
#include <set>

#include "autograph/cuda/detail/launch_hook.hpp"
#include "autograph/cuda/device.hpp"
#include "autograph/cuda/memory_plan.hpp"
#include "dnn.hpp"

namespace autograph::cuda {

using Kind = LoweredGraph::ValueInfo::Kind;

struct GraphExecutable::Impl {
  std::shared_ptr<LoweredGraph const> g;
  Schedule schedule;
  ExecOptions options;
  std::shared_ptr<ScratchArena> scratch;
  HappensBefore hb;
  MemoryPlan memory;
  DeviceBuffer own_arena;
  std::vector<float*> value_ptr;
  struct NodeArgs {
    std::vector<float const*> in;
    std::vector<float*> out;
    std::vector<void*> workspace;
    std::vector<void const*> uploaded;
    LaunchArgs args;
  };
  std::vector<NodeArgs> node_args;  // by index into g->nodes
  Stream origin;
  std::vector<Stream> streams;
  std::vector<char> stream_used;
  std::vector<std::unique_ptr<Event>> events;  // by NodeId: recorded after a node another stream waits for
  Event fork;
  std::vector<Event> joins;
  GraphExec exec;
  std::size_t launched = 0;

  ~Impl() {
    // Before the streams go: the device's cuDNN handle may still be bound to one of them
    // (the last convolution launched or captured here set it).
    if (!g || !g->device) return;
    for (auto const& s : streams) dnn::forget_stream(*g->device, s.get());
  }

  std::string label(NodeId id) const { return node_label(*g, id); }

  void plan() {
    validate_schedule(*g, hb, options.complete);
    memory = plan_memory(*g, hb, options.check_arena);
    std::byte* arena = nullptr;
    if (memory.arena.size > 0) {
      if (scratch) {
        arena = static_cast<std::byte*>(scratch->reserve(memory.arena.size));
      } else {
        own_arena = DeviceBuffer(memory.arena.size, "arena");
        arena = static_cast<std::byte*>(own_arena.get());
      }
    }
    // Where every value lives.
    auto const& values = g->values;
    value_ptr.assign(values.size(), nullptr);
    for (std::uint32_t v = 0; v < values.size(); ++v) {
      auto at = locate(*g, memory, v);
      std::byte* base = nullptr;
      switch (at.storage) {
        case Kind::input: base = static_cast<std::byte*>(g->input_buffers[at.slot]->get()); break;
        case Kind::constant: base = static_cast<std::byte*>(const_cast<void*>(g->constants[at.slot]->get())); break;
        case Kind::buffer: base = arena; break;
        case Kind::view:
        case Kind::empty: break;
      }
      value_ptr[v] = base ? reinterpret_cast<float*>(base + at.byte_offset) : nullptr;
    }
    // Every node's launch arguments.
    node_args.resize(g->nodes.size());
    for (std::size_t i = 0; i < g->nodes.size(); ++i) {
      auto const& n = g->nodes[i];
      auto& a = node_args[i];
      for (std::uint32_t v : n.inputs) a.in.push_back(value_ptr[v]);
      for (std::uint32_t v : n.outputs) a.out.push_back(value_ptr[v]);
      for (auto const& u : n.uploads) a.uploaded.push_back(u->get());
      for (std::size_t w = 0; w < memory.workspace_request[i].size(); ++w)
        a.workspace.push_back(n.workspaces[w] == 0 || !arena ? nullptr : arena + memory.arena.offsets[memory.workspace_request[i][w]]);
      a.args.device = g->device;
      a.args.in = a.in;
      a.args.out = a.out;
      a.args.workspace = a.workspace;
      a.args.uploaded = a.uploaded;
      a.args.placed = n.placed;
    }
  }

  /// What node `index`'s launches may touch, for detail::launch_hook (tests only).
  detail::NodeMemory hook_memory;
  detail::NodeMemory const& node_memory(std::size_t index, cudaStream_t s) {
    auto const& n = g->nodes[index];
    auto const& a = node_args[index];
    auto& m = hook_memory;
    m.label = n.label;
    m.stream = s;
    m.reads.clear();
    m.writes.clear();
    auto bytes = [&](std::uint32_t v) { return static_cast<std::size_t>(g->values[v].desc.bytes()); };
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (a.in[i]) m.reads.push_back({a.in[i], bytes(n.inputs[i])});
    for (std::size_t u = 0; u < n.uploads.size(); ++u)
      if (a.uploaded[u]) m.reads.push_back({a.uploaded[u], n.uploads[u]->bytes()});
    for (std::size_t o = 0; o < n.outputs.size(); ++o)
      if (a.out[o]) m.writes.push_back({a.out[o], bytes(n.outputs[o])});
    for (std::size_t w = 0; w < a.workspace.size(); ++w)
      if (a.workspace[w]) m.writes.push_back({a.workspace[w], n.workspaces[w]});
    return m;
  }

  /// Timing events around every launch, for trace().
  struct Trace {
    std::vector<Event> start, end;  // by index into hb.launches()
  };

  void enqueue(bool capturing, Trace* trace = nullptr) {
    check(cudaEventRecord(fork.get(), origin.get()), "cudaEventRecord", "fork");
    for (std::size_t t = 0; t < streams.size(); ++t)
      if (stream_used[t]) check(cudaStreamWaitEvent(streams[t].get(), fork.get(), 0), "cudaStreamWaitEvent", "fork");
    for (std::uint32_t f : hb.order()) {
      Launch const& l = *hb.launches()[f];
      cudaStream_t s = streams[hb.stream(l.node)].get();
      for (NodeId w : l.waits) check(cudaStreamWaitEvent(s, events[w]->get(), 0), "cudaStreamWaitEvent", label(l.node) + " waiting for " + label(w));
      auto index = g->node_index[l.node];
      auto const& n = g->nodes[index];
      auto& a = node_args[index];
      a.args.stream = s;
      if (trace) check(cudaEventRecord(trace->start[f].get(), s), "cudaEventRecord", n.label);
      if (detail::launch_hook) detail::launch_hook(&node_memory(index, s));
      for (auto const& launch : n.launches) {
        try {
          launch.fn(a.args);
        } catch (CudaError const& e) {
          throw CudaError(n.label + " (" + launch.what + "): " + e.what());
        }
      }
      if (detail::launch_hook) detail::launch_hook(nullptr);
      if (trace) check(cudaEventRecord(trace->end[f].get(), s), "cudaEventRecord", n.label);
      if (options.sync_each_launch && !capturing)
        check(cudaStreamSynchronize(s), "cudaStreamSynchronize", n.label + " (running its launches)");
      if (events[l.node]) check(cudaEventRecord(events[l.node]->get(), s), "cudaEventRecord", n.label);
    }
    for (std::size_t t = 0; t < streams.size(); ++t) {
      if (!stream_used[t]) continue;
      check(cudaEventRecord(joins[t].get(), streams[t].get()), "cudaEventRecord", "join");
      check(cudaStreamWaitEvent(origin.get(), joins[t].get(), 0), "cudaStreamWaitEvent", "join");
    }
  }

  void capture() {
    check(cudaStreamBeginCapture(origin.get(), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t graph = nullptr;
    try {
      enqueue(true);
    } catch (...) {
      (void)cudaStreamEndCapture(origin.get(), &graph);
      if (graph) (void)cudaGraphDestroy(graph);
      (void)cudaGetLastError();
      throw;
    }
    check(cudaStreamEndCapture(origin.get(), &graph), "cudaStreamEndCapture");
    std::size_t nodes = 0;
    cudaError_t status = cudaGraphGetNodes(graph, nullptr, &nodes);
    cudaGraphNode_t empty = nullptr;
    if (status == cudaSuccess && nodes == 0) status = cudaGraphAddEmptyNode(&empty, graph, nullptr, 0);  // a schedule with no work
    cudaGraphExec_t e = nullptr;
    if (status == cudaSuccess) status = cudaGraphInstantiate(&e, graph, 0);
    (void)cudaGraphDestroy(graph);
    check(status, "cudaGraphInstantiate");
    exec = GraphExec(e);
  }
};

GraphExecutable::GraphExecutable(std::shared_ptr<LoweredGraph const> lowered, Schedule schedule, ExecOptions options,
                                 std::shared_ptr<ScratchArena> scratch) {
  if (!lowered) throw Error("GraphExecutable: no lowered graph");
  if (!lowered->device) throw Error("GraphExecutable: the graph was lowered for planning only (no device)");
  // Before Impl exists: its origin stream and fork event are created on the current device,
  // which must be the graph's (RuntimeOptions::device need not be 0).
  lowered->device->make_current();
  impl_ = std::make_unique<Impl>();
  Impl& m = *impl_;
  m.g = std::move(lowered);
  m.schedule = std::move(schedule);
  m.options = options;
  m.scratch = std::move(scratch);
  m.hb = happens_before(*m.g, m.schedule);
  m.plan();

  m.streams.resize(m.schedule.streams.size());
  m.stream_used.assign(m.schedule.streams.size(), 0);
  m.joins.resize(m.schedule.streams.size());
  m.events.resize(m.g->id_bound);
  for (std::size_t t = 0; t < m.schedule.streams.size(); ++t) {
    m.stream_used[t] = !m.schedule.streams[t].empty();
    m.launched += m.schedule.streams[t].size();
    for (auto const& l : m.schedule.streams[t])
      for (NodeId w : l.waits)
        if (!m.events[w]) m.events[w] = std::make_unique<Event>();
  }
  if (m.options.capture) {
    // One run without capture first: kernels load lazily on first launch and the libraries
    // initialise on first use, neither of which may happen inside a capture.
    if (m.options.warm_up) {
      m.enqueue(false);
      check(cudaStreamSynchronize(m.origin.get()), "cudaStreamSynchronize", "the warm-up run before capture");
    }
    m.capture();
  }
}

GraphExecutable::~GraphExecutable() = default;
GraphExecutable::GraphExecutable(GraphExecutable&&) noexcept = default;
GraphExecutable& GraphExecutable::operator=(GraphExecutable&&) noexcept = default;

namespace {
void check_inputs(LoweredGraph const& g, std::span<Tensor const> inputs) {
  auto const& ins = g.inputs;
  if (inputs.size() != ins.size())
    throw ExecutionError("the graph has " + std::to_string(ins.size()) + " inputs, " + std::to_string(inputs.size()) + " were given");
  for (std::size_t i = 0; i < ins.size(); ++i)
    if (inputs[i].shape() != ins[i].desc.shape)
      throw ExecutionError("input '" + ins[i].label + "' expects shape " + ins[i].desc.shape.to_string() + ", got " +
                           inputs[i].shape().to_string());
}
}  // namespace

void write_inputs(LoweredGraph const& g, std::span<Tensor const> inputs) {
  if (!g.device) throw Error("write_inputs: the graph was lowered for planning only (no device)");
  check_inputs(g, inputs);
  g.device->make_current();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (auto bytes = static_cast<std::size_t>(g.inputs[i].desc.bytes()); bytes > 0)
      check(cudaMemcpy(g.input_buffers[i]->get(), inputs[i].ptr(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy",
            "copying input '" + g.inputs[i].label + "'");
}

void GraphExecutable::set_inputs(std::span<Tensor const> inputs) {
  Impl& m = *impl_;
  check_inputs(*m.g, inputs);
  m.g->device->make_current();
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (auto bytes = static_cast<std::size_t>(m.g->inputs[i].desc.bytes()); bytes > 0)
      check(cudaMemcpyAsync(m.g->input_buffers[i]->get(), inputs[i].ptr(), bytes, cudaMemcpyHostToDevice, m.origin.get()), "cudaMemcpyAsync",
            "copying input '" + m.g->inputs[i].label + "'");
}

void GraphExecutable::launch() {
  Impl& m = *impl_;
  m.g->device->make_current();
  if (m.exec) check(cudaGraphLaunch(m.exec.get(), m.origin.get()), "cudaGraphLaunch");
  else m.enqueue(false);
}

void GraphExecutable::synchronize() {
  check(cudaStreamSynchronize(impl_->origin.get()), "cudaStreamSynchronize", "running the graph (a kernel faulted; ExecOptions{.capture = false, "
                                                                               ".sync_each_launch = true} names it)");
}

std::vector<Tensor> GraphExecutable::read_outputs() {
  Impl& m = *impl_;
  std::vector<Tensor> out;
  for (std::uint32_t v : m.g->outputs) {
    Tensor t(m.g->values[v].desc.shape);
    auto bytes = static_cast<std::size_t>(m.g->values[v].desc.bytes());
    if (bytes > 0)
      check(cudaMemcpyAsync(t.mutable_ptr(), m.value_ptr[v], bytes, cudaMemcpyDeviceToHost, m.origin.get()), "cudaMemcpyAsync",
            "copying an output back");
    out.push_back(std::move(t));
  }
  synchronize();
  return out;
}

std::vector<Tensor> GraphExecutable::run(std::span<Tensor const> inputs) {
  if (!impl_->options.complete) throw Error("run(): this executable runs a partial schedule; its outputs would be meaningless");
  set_inputs(inputs);
  launch();
  return read_outputs();
}

std::vector<Tensor> GraphExecutable::run(std::map<std::string, Tensor> const& inputs) {
  std::vector<Tensor> ordered;
  for (auto const& in : impl_->g->inputs) {
    auto it = inputs.find(in.label);
    if (it == inputs.end()) throw ExecutionError("no tensor given for graph input '" + in.label + "'");
    ordered.push_back(it->second);
  }
  if (ordered.size() != inputs.size())
    for (auto const& [name, t] : inputs)
      if (std::ranges::none_of(impl_->g->inputs, [&](auto const& in) { return in.label == name; }))
        throw ExecutionError("'" + name + "' is not an input of the graph");
  return run(std::span<Tensor const>(ordered));
}

double GraphExecutable::time(int warmup, int replays) {
  if (replays < 1) throw Error("GraphExecutable::time: replays must be at least 1, got " + std::to_string(replays));
  Impl& m = *impl_;
  m.g->device->make_current();
  // One event pair around all the replays, launched back to back (after the warm-ups, also
  // not waited for): the host submits the next replay while the device runs the previous
  // one, so the interval is the device's time. An event pair around each replay, waited
  // for before the next, also timed the host submitting it, while the device sat idle.
  for (int i = 0; i < warmup; ++i) launch();
  Event start(true), stop(true);
  check(cudaEventRecord(start.get(), m.origin.get()), "cudaEventRecord");
  for (int i = 0; i < replays; ++i) launch();
  check(cudaEventRecord(stop.get(), m.origin.get()), "cudaEventRecord");
  check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize", "timing the replays");
  float elapsed = 0;
  check(cudaEventElapsedTime(&elapsed, start.get(), stop.get()), "cudaEventElapsedTime");
  return static_cast<double>(elapsed) / replays;
}

Timeline GraphExecutable::trace() {
  Impl& m = *impl_;
  m.g->device->make_current();
  std::size_t n = m.hb.launches().size();
  Impl::Trace t;
  for (std::size_t i = 0; i < n; ++i) {
    t.start.emplace_back(true);
    t.end.emplace_back(true);
  }
  Event begin(true), finish(true);
  synchronize();
  check(cudaEventRecord(begin.get(), m.origin.get()), "cudaEventRecord");
  m.enqueue(false, &t);
  check(cudaEventRecord(finish.get(), m.origin.get()), "cudaEventRecord");
  check(cudaEventSynchronize(finish.get()), "cudaEventSynchronize", "tracing a run");
  auto us = [&](Event const& e) {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, begin.get(), e.get()), "cudaEventElapsedTime");
    return static_cast<double>(ms) * 1000.0;
  };
  Timeline timeline;
  for (std::size_t f = 0; f < n; ++f) {
    NodeId id = m.hb.launches()[f]->node;
    timeline.kernels.push_back({id, m.hb.stream(id), us(t.start[f]), us(t.end[f]), 0});
  }
  timeline.total_us = us(finish);
  timeline.streams = m.schedule.num_streams();
  timeline.waits = m.schedule.num_waits();
  timeline.kind = "measured (" + m.g->device->info().name + ": CUDA events around every kernel, launched without a graph)";
  return timeline;
}

ArenaPlan const& GraphExecutable::arena() const { return impl_->memory.arena; }
Schedule const& GraphExecutable::schedule() const { return impl_->schedule; }
LoweredGraph const& GraphExecutable::lowered() const { return *impl_->g; }
std::size_t GraphExecutable::num_launched() const { return impl_->launched; }

double median(std::vector<double> v) {
  if (v.empty()) throw Error("median of no values");
  std::ranges::sort(v);
  std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace autograph::cuda
