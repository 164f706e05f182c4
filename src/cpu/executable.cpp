// The CPU runtime's executable (autograph/cpu/executable.hpp): thread plan, preparation,
// memory plan, binding, and the stream threads.
#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/threads_worth.hpp"

#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "autograph/runtime/plan/schedule_check.hpp"

namespace autograph::cpu {

int available_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return (*mid + *std::max_element(v.begin(), mid)) / 2;
}

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using Memory = std::unique_ptr<std::byte, FreeDeleter>;

Memory allocate(std::size_t bytes, std::string const& what) {
  constexpr std::size_t alignment = 256;  // the arena plan's alignment; oneDNN wants 64
  std::size_t size = std::max<std::size_t>(alignment, align_up(bytes, alignment));
  auto* p = static_cast<std::byte*>(std::aligned_alloc(alignment, size));
  if (!p) throw ExecutionError("the CPU runtime could not allocate " + std::to_string(bytes) + " bytes for " + what);
  std::memset(p, 0, size);  // no uninitialised (possibly denormal or NaN) data in timed runs of partial schedules
  return Memory(p);
}

/// Busy-wait iterations (each a pause instruction, about 40-140 cycles on x86) before a stream
/// thread blocks on a futex for a wait, a core or the next run. AUTOGRAPH_CPU_WAIT_SPIN sets it
/// (an experiment's knob; 64, the default, was the fixed count before).
int wait_spin() {
  static int const n = [] {
    char const* v = std::getenv("AUTOGRAPH_CPU_WAIT_SPIN");
    return v && *v ? std::max(0, std::atoi(v)) : 64;
  }();
  return n;
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// Waits until `pred()` holds: up to wait_spin() pause iterations, then blocking on `a`'s futex
/// while `a` still holds the value `pred` was false for.
template <class T, class Pred>
void spin_then_wait(std::atomic<T>& a, Pred pred, std::memory_order order = std::memory_order_acquire) {
  for (int spin = 0, n = wait_spin(); !pred(); ++spin) {
    if (spin < n) {
      cpu_relax();
      continue;
    }
    T seen = a.load(order);
    if (!pred()) a.wait(seen, order);
  }
}

/// The cores as a resource: a kernel takes its thread count before it runs and gives it back
/// after, so that the kernels running at any moment never use more threads than there are
/// cores (concurrent streams beyond the core count queue instead of time-slicing).
class Cores {
 public:
  explicit Cores(int n) : free_(n) {}
  void take(int n) {
    int f = free_.load(std::memory_order_relaxed);
    for (;;) {
      if (f >= n) {
        if (free_.compare_exchange_weak(f, f - n, std::memory_order_acquire, std::memory_order_relaxed)) return;
      } else {
        spin_then_wait(free_, [&] { return free_.load(std::memory_order_relaxed) >= n; }, std::memory_order_relaxed);
        f = free_.load(std::memory_order_relaxed);
      }
    }
  }
  void give(int n) {
    free_.fetch_add(n, std::memory_order_release);
    free_.notify_all();
  }

 private:
  std::atomic<int> free_;
};

}  // namespace

struct CpuExecutable::Impl {
  struct Kernel {
    std::uint32_t node = 0;  // index into graph->nodes
    std::uint32_t flat = 0;  // its launch index in the schedule (HappensBefore::flat)
    int threads = 1;
    std::vector<std::uint32_t> waits;  // flat launch indices
    std::vector<Runner> runners;
    std::vector<std::string> what;
  };

  std::shared_ptr<CpuGraph const> graph;
  HappensBefore hb;
  int cores = 1;
  std::vector<std::vector<Kernel>> streams;  // the schedule's non-empty streams
  std::vector<std::uint32_t> flat_of_kernel;  // flat index per (stream, position), laid out stream by stream
  std::vector<int> node_threads;              // by NodeId
  MemoryPlan memory;
  Memory arena;
  std::vector<Memory> input_buffers;

  // Run state.
  std::unique_ptr<std::atomic<std::uint64_t>[]> done;  // per flat launch: the run that last finished it
  std::atomic<std::uint64_t> epoch{0};
  std::atomic<std::size_t> running{0};
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  std::string error_node;
  std::unique_ptr<Cores> free_cores;
  std::vector<std::thread> workers;

  void plan_threads(Schedule const& s, bool by_work) {
    // A kernel's concurrency: 1 + the other streams with a kernel that may run at the same
    // time (neither ordered before nor after it). On stream t the kernels ordered before k
    // form a prefix, so the first one that is not is the only candidate.
    node_threads.assign(graph->id_bound, 0);
    for (std::size_t si = 0; si < s.streams.size(); ++si)
      for (auto const& l : s.streams[si]) {
        int concurrent = 1;
        for (std::size_t t = 0; t < s.streams.size(); ++t) {
          if (t == si || s.streams[t].empty()) continue;
          auto const& other = s.streams[t];
          auto it = std::partition_point(other.begin(), other.end(), [&](Launch const& j) { return hb.before(j.node, l.node); });
          if (it != other.end() && !hb.before(l.node, it->node)) ++concurrent;
        }
        int share = std::max(1, cores / concurrent);
        CpuGraph::Node const* n = graph->node(l.node);
        node_threads[l.node] = by_work && n ? threads_worth(n->flops, n->bytes, share) : share;
      }
  }

  void run_stream(std::size_t si, std::uint64_t e) {
    for (auto& k : streams[si]) {
      for (std::uint32_t w : k.waits) {
        auto& flag = done[w];
        spin_then_wait(flag, [&] { return flag.load(std::memory_order_acquire) >= e; });
      }
      if (!failed.load(std::memory_order_relaxed)) {  // after a failure the run only releases its waiters
        free_cores->take(k.threads);
        omp_set_num_threads(k.threads);
        try {
          for (auto& r : k.runners) r();
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!error) {
            error = std::current_exception();
            error_node = graph->nodes[k.node].label;
          }
          failed.store(true, std::memory_order_relaxed);
        }
        free_cores->give(k.threads);
      }
      auto& flag = done[k.flat];
      flag.store(e, std::memory_order_release);
      flag.notify_all();
    }
    if (running.fetch_sub(1, std::memory_order_acq_rel) == 1) running.notify_all();
  }

  void worker(std::size_t si) {
    std::uint64_t seen = 0;
    for (;;) {
      spin_then_wait(epoch, [&] { return epoch.load(std::memory_order_acquire) != seen; });
      if (stop.load(std::memory_order_acquire)) return;
      std::uint64_t e = epoch.load(std::memory_order_acquire);
      if (e == seen) continue;
      seen = e;
      run_stream(si, e);
    }
  }

  void run_once() {
    {
      std::lock_guard lock(error_mutex);
      error = nullptr;
    }
    failed.store(false, std::memory_order_relaxed);
    running.store(streams.size(), std::memory_order_relaxed);
    std::uint64_t e = epoch.load(std::memory_order_relaxed) + 1;
    epoch.store(e, std::memory_order_release);
    epoch.notify_all();
    if (!streams.empty()) run_stream(0, e);
    spin_then_wait(running, [&] { return running.load(std::memory_order_acquire) == 0; });
    std::lock_guard lock(error_mutex);
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (std::exception const& ex) {
        std::string what = ex.what();
        throw ExecutionError(what.starts_with(error_node) ? what : error_node + ": " + what);
      }
    }
  }

  ~Impl() {
    stop.store(true, std::memory_order_release);
    epoch.fetch_add(1, std::memory_order_release);
    epoch.notify_all();
    for (auto& t : workers) t.join();
  }
};

CpuExecutable::CpuExecutable(std::shared_ptr<CpuGraph const> g, Schedule const& s, ExecOptions const& options) : impl_(std::make_unique<Impl>()) {
  auto& m = *impl_;
  m.graph = std::move(g);
  auto const& graph = *m.graph;
  m.cores = options.cores > 0 ? options.cores : available_cores();
  m.hb = happens_before(graph, s);
  validate_schedule(graph, m.hb, options.complete);
  m.plan_threads(s, options.threads_by_work);

  // Prepare every scheduled kernel with its thread count (oneDNN sizes its work split by the
  // threads OpenMP reports when a primitive is created).
  std::vector<Preparation> preps;
  std::vector<std::uint32_t> prep_of(graph.nodes.size(), CpuGraph::npos);
  int caller_threads = omp_get_max_threads();
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    auto const& n = graph.nodes[i];
    if (!n.prepare || !m.hb.scheduled(n.id)) continue;
    std::vector<TensorDesc> in, out;
    std::vector<Layout> in_layouts, out_layouts;
    for (auto v : n.inputs) in.push_back(graph.values[v].desc), in_layouts.push_back(graph.layouts[v]);
    for (auto v : n.outputs) out.push_back(graph.values[v].desc), out_layouts.push_back(graph.layouts[v]);
    Preparation p(n.label, std::move(in), std::move(out), n.constant_inputs, m.node_threads[n.id], std::move(in_layouts), std::move(out_layouts));
    omp_set_num_threads(p.threads());
    try {
      n.prepare(p);
    } catch (ExecutionError const& e) {
      omp_set_num_threads(caller_threads);
      if (std::string_view(e.what()).starts_with(n.label)) throw;
      throw ExecutionError(n.label + ": " + e.what());
    } catch (...) {
      omp_set_num_threads(caller_threads);
      throw;
    }
    prep_of[i] = static_cast<std::uint32_t>(preps.size());
    preps.push_back(std::move(p));
  }
  omp_set_num_threads(caller_threads);

  HappensBefore injected;
  if (options.arena_schedule) {
    injected = happens_before(graph, *options.arena_schedule);
    for (auto const& n : graph.nodes)
      if (n.prepare && m.hb.scheduled(n.id) != injected.scheduled(n.id))
        throw ScheduleError("the arena schedule and the schedule that runs differ in whether they launch " + n.label);
  }
  m.memory = plan_memory(
      graph, options.arena_schedule ? injected : m.hb, [&](std::size_t i) { return static_cast<bool>(graph.nodes[i].prepare); },
      [&](std::size_t i) { return prep_of[i] == CpuGraph::npos ? std::span<std::size_t const>{} : preps[prep_of[i]].workspaces(); },
      options.check_arena);
  m.arena = allocate(m.memory.arena.size, "the arena");
  for (auto const& in : graph.inputs) m.input_buffers.push_back(allocate(static_cast<std::size_t>(in.desc.bytes()), "input '" + in.label + "'"));

  auto pointer = [&](std::uint32_t v) -> float* {
    auto at = locate(graph, m.memory, v);
    switch (at.storage) {
      case PlannedValue::Kind::input: return reinterpret_cast<float*>(m.input_buffers[at.slot].get() + at.byte_offset);
      case PlannedValue::Kind::constant: return const_cast<float*>(graph.constants[at.slot].ptr()) + at.byte_offset / sizeof(float);  // read only
      case PlannedValue::Kind::buffer: return reinterpret_cast<float*>(m.arena.get() + at.byte_offset);
      default: return nullptr;
    }
  };

  // Streams and binding.
  for (auto const& stream : s.streams) {
    if (stream.empty()) continue;
    auto& ks = m.streams.emplace_back();
    for (auto const& l : stream) {
      std::uint32_t i = graph.node_index[l.node];
      auto const& n = graph.nodes[i];
      Impl::Kernel k;
      k.node = i;
      k.flat = static_cast<std::uint32_t>(m.hb.flat(l.node));
      k.threads = m.node_threads[l.node];
      for (NodeId w : l.waits) k.waits.push_back(static_cast<std::uint32_t>(m.hb.flat(w)));
      auto const& p = preps[prep_of[i]];
      std::vector<float const*> in;
      std::vector<float*> out;
      std::vector<void*> ws;
      for (auto v : n.inputs) in.push_back(pointer(v));
      for (auto v : n.outputs) out.push_back(pointer(v));
      for (auto r : m.memory.workspace_request[i]) ws.push_back(m.arena.get() + m.memory.arena.offsets[r]);
      for (auto const& step : p.steps()) {
        k.runners.push_back(step.bind(Io{in, out, ws}));
        k.what.push_back(step.what);
      }
      ks.push_back(std::move(k));
    }
  }
  m.done = std::make_unique<std::atomic<std::uint64_t>[]>(m.hb.launches().size());
  m.free_cores = std::make_unique<Cores>(m.cores);
  for (std::size_t si = 1; si < m.streams.size(); ++si) m.workers.emplace_back([&m, si] { m.worker(si); });
}

CpuExecutable::~CpuExecutable() = default;
CpuExecutable::CpuExecutable(CpuExecutable&&) noexcept = default;
CpuExecutable& CpuExecutable::operator=(CpuExecutable&&) noexcept = default;

void CpuExecutable::write_inputs(std::span<Tensor const> inputs) {
  auto const& graph = *impl_->graph;
  if (inputs.size() != graph.inputs.size())
    throw ExecutionError("the graph has " + std::to_string(graph.inputs.size()) + " inputs, " + std::to_string(inputs.size()) + " were given");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto const& in = graph.inputs[i];
    if (inputs[i].shape() != in.desc.shape)
      throw ExecutionError("input '" + in.label + "' has shape " + in.desc.shape.to_string() + ", the tensor given has shape " +
                           inputs[i].shape().to_string());
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto data = inputs[i].data();
    std::copy(data.begin(), data.end(), reinterpret_cast<float*>(impl_->input_buffers[i].get()));
  }
}

void CpuExecutable::run() { impl_->run_once(); }

std::vector<Tensor> CpuExecutable::run(std::span<Tensor const> inputs) {
  write_inputs(inputs);
  run();
  auto const& graph = *impl_->graph;
  std::vector<Tensor> out;
  for (std::uint32_t v : graph.outputs) {
    auto const& desc = graph.values[v].desc;
    std::vector<float> data(static_cast<std::size_t>(desc.numel()));
    if (!data.empty()) {
      auto at = locate(graph, impl_->memory, v);
      std::byte const* base = nullptr;
      switch (at.storage) {
        case PlannedValue::Kind::input: base = impl_->input_buffers[at.slot].get(); break;
        case PlannedValue::Kind::constant: base = reinterpret_cast<std::byte const*>(graph.constants[at.slot].ptr()); break;
        case PlannedValue::Kind::buffer: base = impl_->arena.get(); break;
        default: break;
      }
      float const* p = base ? reinterpret_cast<float const*>(base + at.byte_offset) : nullptr;
      if (p) std::copy(p, p + data.size(), data.begin());
    }
    out.emplace_back(desc.shape, std::move(data));
  }
  return out;
}

std::vector<double> CpuExecutable::time(int warmup, int runs, double budget_ms) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < warmup; ++i) run();
  std::vector<double> samples;
  double total = 0;
  constexpr std::size_t at_least = 5;
  while (samples.size() < static_cast<std::size_t>(std::max(runs, 1)) && !(budget_ms > 0 && total >= budget_ms && samples.size() >= at_least)) {
    auto t0 = clock::now();
    run();
    double ms = std::chrono::duration<double, std::milli>(clock::now() - t0).count();
    samples.push_back(ms);
    total += ms;
  }
  return samples;
}

int CpuExecutable::threads(NodeId id) const { return id < impl_->node_threads.size() ? impl_->node_threads[id] : 0; }
std::size_t CpuExecutable::streams() const { return impl_->streams.size(); }
ArenaPlan const& CpuExecutable::arena() const { return impl_->memory.arena; }
std::optional<std::size_t> CpuExecutable::arena_offset(Value v) const {
  auto const& g = *impl_->graph;
  std::uint32_t id = g.value(v);
  if (impl_->memory.request_of[id] == MemoryPlan::npos) return std::nullopt;
  return impl_->memory.offset(g, id);
}
CpuGraph const& CpuExecutable::graph() const { return *impl_->graph; }
std::vector<std::string> CpuExecutable::steps(NodeId id) const {
  for (auto const& s : impl_->streams)
    for (auto const& k : s)
      if (impl_->graph->nodes[k.node].id == id) return k.what;
  return {};
}

}  // namespace autograph::cpu
