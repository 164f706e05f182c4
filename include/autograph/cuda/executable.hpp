#pragma once
// GraphExecutable: one lowered graph under one schedule, ready to run.
//
// Construction plans the memory arena from the schedule's happens-before relation, creates
// one stream per schedule stream and one event per kernel another stream waits for, and
// captures the whole schedule once into a CUDA graph with fixed addresses:
//
//   origin stream:  fork event -> every schedule stream waits for it
//   in an order that respects stream order and waits (HappensBefore::order()):
//     stream(k):    wait for the events of k's waits; k's launches; record k's event if awaited
//   every schedule stream: join event -> origin waits for all
//
// A run copies the inputs into the static input buffers, replays the graph on the origin
// stream, and copies the outputs back. Not thread-safe; one executable runs at a time per
// lowered graph (they share the static input buffers).
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cuda/arena.hpp"
#include "autograph/cuda/lowered_graph.hpp"
#include "autograph/cuda/memory.hpp"
#include "autograph/runtime/runtime.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph::cuda {

struct ExecOptions {
  /// Capture into a CUDA graph and replay it (the runtime's normal mode). false: enqueue the
  /// launches anew on every run (no graph), e.g. to find which node faults.
  bool capture = true;
  /// Without capture: synchronise after every node, so an asynchronous fault names its node.
  bool sync_each_launch = false;
  /// Run the launches once without capture before capturing them (lazily loaded kernels and
  /// library initialisation must not happen inside a capture).
  bool warm_up = true;
  /// The schedule launches every kernel of the graph (required by run()). false: a partial
  /// schedule (an IOS stage being timed); the kernels it leaves out count as done, their
  /// outputs as present.
  bool complete = true;
  /// Verify the arena plan against the schedule (quadratic; the tests turn it on).
  bool check_arena = false;
};

/// A device allocation that grows as needed, shared by executables that never live at the
/// same time (the runtime's measurements), so timing many candidates does not cudaMalloc
/// an arena per candidate.
class ScratchArena {
 public:
  void* reserve(std::size_t bytes) {
    if (bytes > buffer_.bytes()) {
      buffer_.reset();  // free first: the old and new arena need not fit at once
      buffer_ = DeviceBuffer(bytes, "arena");
    }
    return buffer_.get();
  }

 private:
  DeviceBuffer buffer_;
};

class GraphExecutable {
 public:
  /// @throws ScheduleError when `schedule` launches something that is not a kernel of the
  /// graph, misses one (when complete), or leaves a dependency unenforced; CudaError naming
  /// the node when a launch fails during capture.
  GraphExecutable(std::shared_ptr<LoweredGraph const> lowered, Schedule schedule, ExecOptions options = {},
                  std::shared_ptr<ScratchArena> scratch = nullptr);
  ~GraphExecutable();
  GraphExecutable(GraphExecutable&&) noexcept;
  GraphExecutable& operator=(GraphExecutable&&) noexcept;

  /// Runs with inputs given in the order of Graph::inputs() (ascending node id).
  std::vector<Tensor> run(std::span<Tensor const> inputs);
  /// Runs with inputs bound by the Input nodes' labels.
  std::vector<Tensor> run(std::map<std::string, Tensor> const& inputs);

  /// Copies inputs into the static input buffers (positional), without running.
  void set_inputs(std::span<Tensor const> inputs);
  /// Enqueues one run on the origin stream (a graph replay, or the launches without capture).
  void launch();
  /// Waits for everything enqueued.
  void synchronize();
  /// The graph outputs as left by the last run.
  std::vector<Tensor> read_outputs();
  /// Milliseconds per run: the mean of `replays` runs launched back to back after `warmup`
  /// untimed ones, timed by one pair of CUDA events around them all (the host's submission
  /// overlaps the device's work, so it is not counted). @throws Error when replays < 1.
  double time(int warmup, int replays);

  /// One run launched without the graph, with CUDA events before and after every kernel:
  /// when each ran on which stream, as the device saw it (for timelines; io/chrome_trace.hpp).
  /// Spans include what launching outside a graph adds, so their sum exceeds a replay's time.
  Timeline trace();

  ArenaPlan const& arena() const;
  Schedule const& schedule() const;
  LoweredGraph const& lowered() const;
  /// Nodes launched, cross-stream waits, streams used.
  std::size_t num_launched() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Copies `inputs` (in the order of LoweredGraph::inputs) into the graph's static input
/// buffers, checking their shapes; returns when the copies are done.
void write_inputs(LoweredGraph const& g, std::span<Tensor const> inputs);

/// The median of `v` (the mean of the middle two for an even count). @throws Error when empty.
double median(std::vector<double> v);

}  // namespace autograph::cuda
