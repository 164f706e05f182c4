#pragma once
// CpuExecutable: one lowered graph under one schedule, ready to run on the host's cores —
// the CPU counterpart of a captured CUDA graph. Built once:
//   - the schedule is checked against the graph (every dependency enforced; all kernels
//     when complete);
//   - each kernel gets its intra-op thread count from the schedule: the cores divided among
//     the streams that may run at the same time as it (a kernel alone on the critical path
//     takes every core, concurrent branches share them) — never more threads than cores —
//     and no more than its work is worth (threads_worth.hpp: a small kernel runs on one);
//   - kernels are prepared (library primitives created), one arena is laid out by the
//     device-neutral memory planner from the schedule's happens-before relation, and every
//     pointer is bound;
//   - one worker thread per stream beyond the first (the caller runs stream 0).
// A run then creates nothing and our code allocates nothing (oneDNN's execute builds its own
// argument map inside; an op on its reference kernel allocates): each stream runs its kernels in order,
// and a kernel that waits for another stream's kernel blocks until that kernel has finished
// (an atomic flag per kernel, set with release and read with acquire) — no global barrier.
// Compiled once, in the autograph_cpu library (src/cpu/executable.cpp).
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/lowered_graph.hpp"
#include "autograph/runtime/plan/memory_plan.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph::cpu {

struct ExecOptions {
  bool complete = true;      // the schedule must launch every kernel (false: a partial schedule, e.g. one IOS stage)
  bool check_arena = false;  // verify the arena plan (quadratic; tests)
  int cores = 0;             // cores to use; 0: every core this process may run on
  /// Cap each kernel's threads at what its work is worth (threads_worth.hpp: Eigen's rule, as
  /// onnxruntime's pool sizes its loops); false: every kernel takes its whole share of the cores.
  bool threads_by_work = true;
  /// Fault injection for tests of the plan: lay the arena out as if this schedule (of the same
  /// kernels) ran instead. A schedule with a wait the run does not have lets a buffer be
  /// reused one wait too early, which a run must show as wrong outputs (or ThreadSanitizer as
  /// a race). Null: the schedule that runs.
  Schedule const* arena_schedule = nullptr;
};

/// The cores this process may run on (its affinity mask), at least 1.
int available_cores();

class CpuExecutable {
 public:
  /// @throws ScheduleError when `s` does not run `g`, ExecutionError when a kernel cannot be
  /// prepared (naming the node).
  CpuExecutable(std::shared_ptr<CpuGraph const> g, Schedule const& s, ExecOptions const& options = {});
  ~CpuExecutable();
  CpuExecutable(CpuExecutable&&) noexcept;
  CpuExecutable& operator=(CpuExecutable&&) noexcept;

  /// Copies `inputs` (in the order of the graph's inputs) into the input buffers, runs, and
  /// returns the graph's outputs. @throws ExecutionError for inputs of the wrong count or
  /// shape (naming the input), or a kernel that failed (naming the node).
  std::vector<Tensor> run(std::span<Tensor const> inputs);
  /// Copies `inputs` into the input buffers, which keep them for every later run().
  void write_inputs(std::span<Tensor const> inputs);
  /// One run on the inputs already written. Our code allocates nothing (see the header comment).
  void run();
  /// Wall-clock milliseconds of runs: `warmup` untimed, then `runs` timed runs, or fewer (at
  /// least 5) once the timed runs sum to `budget_ms` (0: no budget).
  std::vector<double> time(int warmup, int runs, double budget_ms = 0);

  /// The intra-op threads node `id`'s kernel runs with (0 when not scheduled).
  int threads(NodeId id) const;
  std::size_t streams() const;
  ArenaPlan const& arena() const;
  /// Where value `v` of the graph lives in the arena (bytes from its start); nullopt for a
  /// value outside it (an input, a constant, an empty tensor).
  std::optional<std::size_t> arena_offset(Value v) const;
  CpuGraph const& graph() const;
  /// What node `id` runs ("oneDNN convolution (jit:avx2)"), one entry per step.
  std::vector<std::string> steps(NodeId id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Median of `samples` (0 when empty).
double median(std::vector<double> samples);

}  // namespace autograph::cpu
