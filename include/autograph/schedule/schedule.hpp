#pragma once
// Schedule: how a graph's kernels run on streams. Every policy (sequential, greedy, Nimble,
// IOS) produces one, and every runtime (simulated, CUDA) executes one:
//
//   for each stream, its kernels in order; for each kernel, the kernels on other streams it
//   waits for (an event recorded right after each of them, waited on before it starts).
//
// Stage-based schedules (IOS) lower to this form with events between stages, never a
// device-wide synchronisation. A schedule may cover only some of a graph's kernels (a
// stage being measured); the others count as already done.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/core/error.hpp"
#include "autograph/graph/value.hpp"

namespace autograph {

/// A schedule does not run the graph it claims to (a missing or repeated kernel, an
/// unenforced dependency, a wait that can never be satisfied).
struct ScheduleError : Error {
  using Error::Error;
};

struct Launch {
  NodeId node = no_node;
  std::vector<NodeId> waits;  // kernels on other streams that must finish before this one starts
  friend bool operator==(Launch const&, Launch const&) = default;
};

struct Schedule {
  std::vector<std::vector<Launch>> streams;

  std::size_t num_kernels() const {
    std::size_t n = 0;
    for (auto const& s : streams) n += s.size();
    return n;
  }
  /// Streams with at least one kernel.
  std::size_t num_streams() const {
    return static_cast<std::size_t>(std::ranges::count_if(streams, [](auto const& s) { return !s.empty(); }));
  }
  std::size_t num_waits() const {
    std::size_t n = 0;
    for (auto const& s : streams)
      for (auto const& l : s) n += l.waits.size();
    return n;
  }
  friend bool operator==(Schedule const&, Schedule const&) = default;
};

/// Where each launch of a schedule sits, and what it knows has finished when it starts.
///
/// A vector clock per launch: known[t] = how many kernels of stream t have certainly
/// finished when the launch starts (through its stream order and, transitively, the waits of
/// everything before it). A dependency p -> v is enforced exactly when
/// known(v)[stream(p)] > position(p). Reusable: scratch space is sized once per graph.
class HappensBefore {
 public:
  static constexpr std::uint32_t none = UINT32_MAX;

  /// `id_bound`: one past the largest NodeId the schedules will name.
  explicit HappensBefore(std::size_t id_bound = 0) : stream_of_(id_bound, none), pos_of_(id_bound, 0) {}

  /// Indexes `s` and computes every launch's clock. `label` names nodes in errors.
  /// @throws ScheduleError for a repeated kernel, a wait on an unscheduled kernel or on its
  /// own stream, or waits that form a cycle with stream order (a deadlock).
  void build(Schedule const& s, std::function<std::string(NodeId)> const& label = {});

  bool scheduled(NodeId id) const { return id < stream_of_.size() && stream_of_[id] != none; }
  std::uint32_t stream(NodeId id) const { return stream_of_[id]; }
  std::uint32_t position(NodeId id) const { return pos_of_[id]; }
  /// True when `p` has certainly finished before `v` starts.
  bool before(NodeId p, NodeId v) const {
    if (stream_of_[p] == stream_of_[v]) return pos_of_[p] < pos_of_[v];
    return clock_[flat(v) * streams_ + stream_of_[p]] > pos_of_[p];
  }
  /// Launches in an order that respects stream order and waits (indices into launches()).
  std::span<std::uint32_t const> order() const { return order_; }
  std::span<Launch const* const> launches() const { return flat_; }
  /// A launch's index in launches().
  std::size_t flat(NodeId id) const { return first_[stream_of_[id]] + pos_of_[id]; }
  /// The launches that start only after launch f: its stream successor and its waiters.
  std::span<std::uint32_t const> successors(std::size_t f) const {
    return {succ_.data() + succ_start_[f], succ_.data() + succ_start_[f + 1]};
  }
  /// How many launches must finish before launch f may start.
  std::uint32_t in_degree(std::size_t f) const { return in_degree_[f]; }

 private:
  // k := max(k, clock(src) joined with src itself).
  void join(std::uint32_t* k, std::size_t src) {
    std::uint32_t const* c = &clock_[src * streams_];
    for (std::size_t t = 0; t < streams_; ++t) k[t] = std::max(k[t], c[t]);
    NodeId id = flat_[src]->node;
    k[stream_of_[id]] = std::max(k[stream_of_[id]], pos_of_[id] + 1);
  }
  void grow(std::size_t n) {
    stream_of_.resize(n, none);
    pos_of_.resize(n, 0);
  }
  void clear() {
    for (NodeId id : touched_) stream_of_[id] = none;
    touched_.clear();
  }
  std::vector<std::uint32_t> stream_of_, pos_of_;
  std::vector<NodeId> touched_;
  std::vector<Launch const*> flat_;
  std::vector<std::uint32_t> first_, clock_, order_;
  std::vector<std::uint32_t> in_degree_, succ_start_, succ_, fill_, missing_, ready_;
  std::size_t streams_ = 0;
};

#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE void HappensBefore::build(Schedule const& s, std::function<std::string(NodeId)> const& label) {
  clear();
  auto name = [&](NodeId id) { return label ? label(id) : "node " + std::to_string(id); };
  streams_ = s.streams.size();
  std::size_t total = s.num_kernels();
  flat_.clear();
  first_.assign(streams_ + 1, 0);
  for (std::uint32_t t = 0; t < s.streams.size(); ++t) {
    first_[t + 1] = first_[t] + static_cast<std::uint32_t>(s.streams[t].size());
    for (std::uint32_t i = 0; i < s.streams[t].size(); ++i) {
      NodeId id = s.streams[t][i].node;
      if (id >= stream_of_.size()) grow(id + 1);
      if (stream_of_[id] != none)
        throw ScheduleError("schedule launches " + name(id) + " twice (streams " + std::to_string(stream_of_[id]) + " and " +
                            std::to_string(t) + ")");
      stream_of_[id] = t;
      pos_of_[id] = i;
      touched_.push_back(id);
      flat_.push_back(&s.streams[t][i]);
    }
  }
  // Edges into each launch: from its stream predecessor and from every kernel it waits for.
  // Stored as successor lists (CSR) for Kahn's algorithm and for simulators.
  in_degree_.assign(total, 0);
  succ_start_.assign(total + 1, 0);
  for (std::size_t f = 0; f < total; ++f) {
    Launch const& l = *flat_[f];
    std::uint32_t t = stream_of_[l.node];
    if (pos_of_[l.node] > 0) {
      ++in_degree_[f];
      ++succ_start_[f];  // one successor of f - 1, counted at its slot (f - 1) + 1
    }
    for (NodeId w : l.waits) {
      if (w >= stream_of_.size() || stream_of_[w] == none)
        throw ScheduleError(name(l.node) + " waits for " + name(w) + ", which the schedule does not launch");
      if (stream_of_[w] == t) throw ScheduleError(name(l.node) + " waits for " + name(w) + " on its own stream " + std::to_string(t));
      ++in_degree_[f];
      ++succ_start_[flat(w) + 1];  // counts sit one past their source; the prefix sum below shifts them
    }
  }
  for (std::size_t f = 0; f < total; ++f) succ_start_[f + 1] += succ_start_[f];
  succ_.assign(succ_start_[total], 0);
  fill_.assign(succ_start_.begin(), succ_start_.end() - 1);
  for (std::size_t f = 0; f < total; ++f) {
    Launch const& l = *flat_[f];
    if (pos_of_[l.node] > 0) succ_[fill_[f - 1]++] = static_cast<std::uint32_t>(f);
    for (NodeId w : l.waits) succ_[fill_[flat(w)]++] = static_cast<std::uint32_t>(f);
  }
  clock_.assign(total * streams_, 0);
  order_.clear();
  missing_.assign(in_degree_.begin(), in_degree_.end());
  ready_.clear();
  for (std::uint32_t f = 0; f < total; ++f)
    if (missing_[f] == 0) ready_.push_back(f);
  while (!ready_.empty()) {
    std::uint32_t f = ready_.back();
    ready_.pop_back();
    order_.push_back(f);
    Launch const& l = *flat_[f];
    std::uint32_t* k = &clock_[f * streams_];
    if (pos_of_[l.node] > 0) join(k, f - 1);
    for (NodeId w : l.waits) join(k, flat(w));
    for (std::uint32_t g : successors(f))
      if (--missing_[g] == 0) ready_.push_back(g);
  }
  if (order_.size() != total) {
    for (std::size_t f = 0; f < total; ++f)
      if (missing_[f] != 0)
        throw ScheduleError("the schedule deadlocks: " + name(flat_[f]->node) + " on stream " + std::to_string(stream_of_[flat_[f]->node]) +
                            " waits in a cycle of waits and stream order");
  }
}
#endif

}  // namespace autograph
