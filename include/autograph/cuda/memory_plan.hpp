#pragma once
// From a lowered graph and a schedule to the memory every value and workspace occupies (the
// device-neutral planner of runtime/plan/memory_plan.hpp, which the CPU runtime shares), and
// the check that the schedule runs the graph. Host code only: GraphExecutable uses it to lay
// out the arena, and the tests run it without a GPU on graphs lowered for planning.
#include <string>
#include <vector>

#include "autograph/cuda/arena.hpp"
#include "autograph/cuda/lowered_graph.hpp"
#include "autograph/runtime/plan/memory_plan.hpp"
#include "autograph/runtime/plan/schedule_check.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph::cuda {

using autograph::MemoryPlan;

inline std::string node_label(LoweredGraph const& g, NodeId id) { return lowered_node_label(g, id); }
using autograph::validate_schedule;

/// Lays out the arena for running `g` under `hb`'s schedule (runtime/plan/memory_plan.hpp).
/// `check` verifies the result with check_arena (quadratic).
inline MemoryPlan plan_memory(LoweredGraph const& g, HappensBefore const& hb, bool check = false) {
  return autograph::plan_memory(
      g, hb, [&](std::size_t i) { return !g.nodes[i].launches.empty(); },
      [&](std::size_t i) { return std::span<std::size_t const>(g.nodes[i].workspaces); }, check);
}

}  // namespace autograph::cuda
