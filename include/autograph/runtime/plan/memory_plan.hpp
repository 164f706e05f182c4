#pragma once
// From a lowered graph and a schedule to the memory every value and workspace occupies: the
// plan both runtimes execute (the CUDA runtime's LoweredGraph, the CPU runtime's CpuGraph).
//
// Arena buffers are the roots of the values kernels write (a buffer placed into a Concat's
// output is part of that output's buffer; views take no memory), plus one buffer per
// workspace of every scheduled node. A buffer's accessors are the scheduled nodes that read
// or write any value living in it. Graph outputs are pinned (they outlive the run); with a
// partial schedule, so is a buffer whose writer is not scheduled but a scheduled node reads
// it (its data counts as already there).
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "autograph/core/tensor_desc.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/runtime/plan/arena.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

/// Where one value of a lowered graph lives.
struct PlannedValue {
  static constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();
  enum class Kind : std::uint8_t {
    input,     // a static input buffer (slot: index into the graph's inputs)
    constant,  // a constant (slot: index into the graph's constants)
    buffer,    // written by its producer's kernels; an arena buffer unless placed into another value
    view,      // elements [offset, offset + numel) of `parent`
    empty,     // no elements: no memory
  };
  Kind kind = Kind::empty;
  TensorDesc desc;
  NodeId producer = no_node;
  std::uint32_t parent = npos;  // views, and buffers placed into a Concat's output
  std::int64_t offset = 0;      // elements into the parent
  std::uint32_t slot = npos;
  std::size_t alignment = 256;  // bytes the pointer is guaranteed to be aligned to
};

/// The value v ultimately lives in, and v's element offset inside it.
inline std::pair<std::uint32_t, std::int64_t> root_of(std::span<PlannedValue const> values, std::uint32_t v) {
  std::int64_t offset = 0;
  while (values[v].parent != PlannedValue::npos) {
    offset += values[v].offset;
    v = values[v].parent;
  }
  return {v, offset};
}

/// What plan_memory reads of a lowered graph: its values, its nodes (in topological order,
/// each with its id and the value ids it reads and writes) and its outputs.
template <class G>
concept PlannableGraph = requires(G const& g) {
  { std::span<PlannedValue const>(g.values) };
  { g.nodes[0].id } -> std::convertible_to<NodeId>;
  { std::span<std::uint32_t const>(g.nodes[0].inputs) };
  { std::span<std::uint32_t const>(g.nodes[0].outputs) };
  { std::span<std::uint32_t const>(g.outputs) };
};

struct MemoryPlan {
  static constexpr std::uint32_t npos = PlannedValue::npos;
  std::vector<BufferRequest> requests;  // the arena buffers first, then the workspaces
  ArenaPlan arena;
  std::vector<std::uint32_t> request_of;                      // by value id: its root's request, or npos (not in the arena)
  std::vector<std::vector<std::uint32_t>> workspace_request;  // by node index: one request per workspace (empty when not scheduled)

  /// Byte offset of value v of `g` in the arena. @pre request_of[v] != npos
  template <PlannableGraph G>
  std::size_t offset(G const& g, std::uint32_t v) const {
    auto elements = root_of(g.values, v).second;
    return arena.offsets[request_of[v]] + static_cast<std::size_t>(elements) * sizeof(float);
  }
};

/// Where a value's first element lies once memory is planned: in which storage (its root's
/// kind: a static input buffer, a constant, or the arena), which one (the slot of an input or
/// a constant), and how many bytes into it. Each runtime maps the storage to its pointers.
struct ValueLocation {
  PlannedValue::Kind storage = PlannedValue::Kind::empty;  // empty: no memory (no elements)
  std::uint32_t slot = PlannedValue::npos;
  std::size_t byte_offset = 0;
};

/// Where value v of `g` lies under `m` (root resolution shared by both runtimes).
template <PlannableGraph G>
ValueLocation locate(G const& g, MemoryPlan const& m, std::uint32_t v) {
  using Kind = PlannedValue::Kind;
  if (g.values[v].kind == Kind::empty) return {};
  auto [root, elements] = root_of(g.values, v);
  auto const& r = g.values[root];
  switch (r.kind) {
    case Kind::input:
    case Kind::constant: return {r.kind, r.slot, static_cast<std::size_t>(elements) * sizeof(float)};
    case Kind::buffer: return {Kind::buffer, PlannedValue::npos, m.offset(g, v)};
    default: return {};
  }
}

/// Lays out the arena for running `g` under `hb`'s schedule (see the header comment).
/// `computes(i)`: whether node i (an index into g.nodes) writes its outputs when scheduled
/// (false for a node with nothing to run); `workspaces(i)`: the bytes of each of its
/// workspaces. `check` verifies the result with check_arena (quadratic).
template <PlannableGraph G, class Computes, class Workspaces>
MemoryPlan plan_memory(G const& g, HappensBefore const& hb, Computes const& computes, Workspaces const& workspaces, bool check = false) {
  using Kind = PlannedValue::Kind;
  constexpr auto npos = MemoryPlan::npos;
  std::span<PlannedValue const> values(g.values);
  MemoryPlan m;
  std::vector<std::uint32_t> root_request(values.size(), npos);
  std::vector<char> written_elsewhere;
  auto request_for = [&](std::uint32_t v) -> std::uint32_t {
    if (values[v].kind == Kind::empty) return npos;
    auto root = root_of(values, v).first;
    if (values[root].kind != Kind::buffer) return npos;
    if (root_request[root] == npos) {
      root_request[root] = static_cast<std::uint32_t>(m.requests.size());
      m.requests.push_back({static_cast<std::size_t>(values[root].desc.bytes()), {}, false});
      written_elsewhere.push_back(0);
    }
    return root_request[root];
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    auto const& n = g.nodes[i];
    if (!computes(i)) continue;
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
    if (values[v].kind != Kind::empty) m.request_of[v] = root_request[root_of(values, v).first];
  m.workspace_request.resize(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (!computes(i) || !hb.scheduled(g.nodes[i].id)) continue;
    for (std::size_t w : workspaces(i)) {
      m.workspace_request[i].push_back(static_cast<std::uint32_t>(m.requests.size()));
      m.requests.push_back({w, {g.nodes[i].id}, false});
    }
  }
  m.arena = plan_arena(m.requests, hb);
  if (check) check_arena(m.arena, m.requests, hb);
  return m;
}

}  // namespace autograph
