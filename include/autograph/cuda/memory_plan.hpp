#pragma once
// From a lowered graph and a schedule to the memory every value and workspace occupies, and
// the check that the schedule runs the graph. Host code only: GraphExecutable uses it to lay
// out the arena, and the tests run it without a GPU on graphs lowered for planning.
//
// Arena buffers are the roots of the values launches write (a buffer placed into a Concat's
// output is part of that output's buffer; views take no memory), plus one buffer per
// workspace of every scheduled node. A buffer's accessors are the scheduled nodes whose
// launches read or write any value living in it. Graph outputs are pinned (they outlive the
// run); with a partial schedule, so is a buffer whose writer is not scheduled but a scheduled
// node reads it (its data counts as already there).
#include <string>
#include <vector>

#include "autograph/cuda/arena.hpp"
#include "autograph/cuda/lowered_graph.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph::cuda {

struct MemoryPlan {
  static constexpr std::uint32_t npos = LoweredGraph::npos;
  std::vector<BufferRequest> requests;  // the arena buffers first, then the workspaces
  ArenaPlan arena;
  std::vector<std::uint32_t> request_of;                      // by value id: its root's request, or npos (not in the arena)
  std::vector<std::vector<std::uint32_t>> workspace_request;  // by node index: one request per workspace (empty when not scheduled)

  /// Byte offset of value v in the arena. @pre request_of[v] != npos
  std::size_t offset(LoweredGraph const& g, std::uint32_t v) const {
    auto [root, elements] = g.root(v);
    (void)root;
    return arena.offsets[request_of[v]] + static_cast<std::size_t>(elements) * sizeof(float);
  }
};

inline std::string node_label(LoweredGraph const& g, NodeId id) {
  auto const* n = g.node(id);
  return n ? n->label : "node " + std::to_string(id);
}

/// Checks that `hb`'s schedule launches only kernels of `g`, each dependency after the
/// kernel it reads, and (when `complete`) every kernel.
/// @throws ScheduleError naming the first problem.
inline void validate_schedule(LoweredGraph const& g, HappensBefore const& hb, bool complete) {
  for (auto const* l : hb.launches()) {
    auto const* n = g.node(l->node);
    if (!n || !n->kernel) throw ScheduleError("the schedule launches " + node_label(g, l->node) + ", which runs no kernel");
  }
  for (auto const& n : g.nodes) {
    if (!n.kernel) continue;
    if (!hb.scheduled(n.id)) {
      if (complete) throw ScheduleError("the schedule never launches " + n.label);
      continue;
    }
    for (NodeId p : n.preds)
      if (hb.scheduled(p) && !hb.before(p, n.id))
        throw ScheduleError(n.label + " (stream " + std::to_string(hb.stream(n.id)) + ") may start before " + node_label(g, p) + " (stream " +
                            std::to_string(hb.stream(p)) + "), which it reads");
  }
}

/// Lays out the arena for running `g` under `hb`'s schedule (see the header comment).
/// `check` verifies the result with check_arena (quadratic).
inline MemoryPlan plan_memory(LoweredGraph const& g, HappensBefore const& hb, bool check = false) {
  using Kind = LoweredGraph::ValueInfo::Kind;
  constexpr auto npos = MemoryPlan::npos;
  auto const& values = g.values;
  MemoryPlan m;
  std::vector<std::uint32_t> root_request(values.size(), npos);
  std::vector<char> written_elsewhere;
  auto request_for = [&](std::uint32_t v) -> std::uint32_t {
    if (values[v].kind == Kind::empty) return npos;
    auto root = g.root(v).first;
    if (values[root].kind != Kind::buffer) return npos;
    if (root_request[root] == npos) {
      root_request[root] = static_cast<std::uint32_t>(m.requests.size());
      m.requests.push_back({static_cast<std::size_t>(values[root].desc.bytes()), {}, false});
      written_elsewhere.push_back(0);
    }
    return root_request[root];
  };
  for (auto const& n : g.nodes) {
    if (n.launches.empty()) continue;
    if (!hb.scheduled(n.id)) {
      for (std::uint32_t v : n.outputs)
        if (auto r = request_for(v); r != npos) written_elsewhere[r] = 1;
      continue;
    }
    auto touch = [&](std::uint32_t v) {
      auto r = request_for(v);
      if (r == npos) return;
      auto& acc = m.requests[r].accessors;
      if (acc.empty() || acc.back() != n.id) acc.push_back(n.id);
    };
    for (std::uint32_t v : n.inputs) touch(v);
    for (std::uint32_t v : n.outputs) touch(v);
  }
  for (std::uint32_t v : g.outputs)
    if (auto r = request_for(v); r != npos) m.requests[r].pinned = true;
  for (std::size_t r = 0; r < m.requests.size(); ++r) {
    if (written_elsewhere[r] && !m.requests[r].accessors.empty()) m.requests[r].pinned = true;
    if (!m.requests[r].pinned && m.requests[r].accessors.empty()) m.requests[r].bytes = 0;  // nothing scheduled touches it
  }
  m.request_of.assign(values.size(), npos);
  for (std::uint32_t v = 0; v < values.size(); ++v)
    if (values[v].kind != Kind::empty) m.request_of[v] = root_request[g.root(v).first];
  m.workspace_request.resize(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    auto const& n = g.nodes[i];
    if (n.launches.empty() || !hb.scheduled(n.id)) continue;
    for (std::size_t w : n.workspaces) {
      m.workspace_request[i].push_back(static_cast<std::uint32_t>(m.requests.size()));
      m.requests.push_back({w, {n.id}, false});
    }
  }
  m.arena = plan_arena(m.requests, hb);
  if (check) check_arena(m.arena, m.requests, hb);
  return m;
}

}  // namespace autograph::cuda
