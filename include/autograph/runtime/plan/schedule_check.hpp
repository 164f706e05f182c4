#pragma once
// A schedule over a lowered graph (a PlannedGraph): the order it enforces between the graph's
// kernels, and the check that it runs the graph. Shared by the CUDA and the CPU runtime.
#include <string>

#include "autograph/schedule/schedule.hpp"

namespace autograph {

/// How errors name node `id` of a lowered graph: its label, else its number.
template <class G>
std::string lowered_node_label(G const& g, NodeId id) {
  auto const* n = g.node(id);
  return n ? n->label : "node " + std::to_string(id);
}

/// The happens-before relation of `s` over the kernels of `g` (whose ids are below g.id_bound).
/// @throws ScheduleError, naming g's nodes, for a schedule that launches a node twice or waits
/// for one it never launches (HappensBefore::build).
template <class G>
HappensBefore happens_before(G const& g, Schedule const& s) {
  HappensBefore hb(g.id_bound);
  hb.build(s, [&](NodeId id) { return lowered_node_label(g, id); });
  return hb;
}

/// Checks that `hb`'s schedule launches only kernels of `g`, each dependency after the
/// kernel it reads, and (when `complete`) every kernel. `g.node(id)` gives a node (null when
/// there is none) with `label`, `kernel` (whether schedules launch it) and `preds` (the
/// kernels it reads from).
/// @throws ScheduleError naming the first problem.
template <class G>
void validate_schedule(G const& g, HappensBefore const& hb, bool complete) {
  for (auto const* l : hb.launches()) {
    auto const* n = g.node(l->node);
    if (!n || !n->kernel) throw ScheduleError("the schedule launches " + lowered_node_label(g, l->node) + ", which runs no kernel");
  }
  for (auto const& n : g.nodes) {
    if (!n.kernel) continue;
    if (!hb.scheduled(n.id)) {
      if (complete) throw ScheduleError("the schedule never launches " + n.label);
      continue;
    }
    for (NodeId p : n.preds)
      if (hb.scheduled(p) && !hb.before(p, n.id))
        throw ScheduleError(n.label + " (stream " + std::to_string(hb.stream(n.id)) + ") may start before " + lowered_node_label(g, p) +
                            " (stream " + std::to_string(hb.stream(p)) + "), which it reads");
  }
}

}  // namespace autograph
