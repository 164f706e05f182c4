#pragma once
// From streams to a Schedule: the fewest waits that enforce every dependency, and the check
// that a schedule enforces them.
//
// Nimble's implementation records an event after, and waits on, every producer on another
// stream. Most of those waits are implied: if kernel v on stream s reads p (stream t), and an
// earlier kernel of s already waited for a later kernel of t, p is done before v starts. With
// a vector clock per kernel (how far along each stream it knows to be finished), a producer
// needs a wait only when neither v's stream predecessor nor another of v's waits covers it.
// Covering is one clock at a time (a join is a component-wise max), so dropping every
// producer covered by another candidate's clock leaves a set where no wait is implied by the
// others — the fewest waits for the given streams and orders.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

/// `streams[t]` lists graph nodes (kernels of `dag`) in the order stream t runs them.
/// @pre every kernel of `dag` on exactly one stream, or only some kernels when `complete` is
///      false (the others count as done);
///      stream order consistent with the dependencies (no stream runs a kernel before one it reads).
/// @post every dependency is enforced, and no wait is implied by the stream order and the others.
/// @throws ScheduleError naming the kernel when a precondition fails.
Schedule insert_waits(KernelDag const& dag, std::vector<std::vector<NodeId>> const& streams, bool complete = true);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE Schedule insert_waits(KernelDag const& dag, std::vector<std::vector<NodeId>> const& streams, bool complete) {
  std::size_t n = dag.size();
  constexpr std::uint32_t none = UINT32_MAX;
  std::vector<std::uint32_t> stream_of(n, none), pos(n, 0);
  std::size_t launched = 0;
  for (std::uint32_t t = 0; t < streams.size(); ++t)
    for (std::uint32_t i = 0; i < streams[t].size(); ++i) {
      NodeId id = streams[t][i];
      std::uint32_t k = dag.index(id);
      if (k == KernelDag::npos) throw ScheduleError("node " + std::to_string(id) + " on stream " + std::to_string(t) + " launches no kernel");
      if (stream_of[k] != none) throw ScheduleError("node " + std::to_string(id) + " is on two streams");
      stream_of[k] = t;
      pos[k] = i;
      ++launched;
    }
  if (complete && launched != n) {
    for (std::size_t k = 0; k < n; ++k)
      if (stream_of[k] == none) throw ScheduleError("node " + std::to_string(dag.node(k)) + " is on no stream");
  }
  std::size_t S = streams.size();
  // after[k]: the clock once kernel k has finished (what k knew at its start, plus itself).
  std::vector<std::uint32_t> after(n * S, 0);
  Schedule out;
  out.streams.resize(S);
  for (std::size_t t = 0; t < S; ++t) out.streams[t].resize(streams[t].size());

  // Process kernels so that stream predecessors and producers come first.
  std::vector<std::uint32_t> missing(n, 0);
  std::vector<std::vector<std::uint32_t>> next(n);
  for (std::size_t k = 0; k < n; ++k) {
    if (stream_of[k] == none) continue;
    for (std::uint32_t p : dag.preds(k))
      if (stream_of[p] != none) {
        ++missing[k];
        next[p].push_back(static_cast<std::uint32_t>(k));
      }
    if (pos[k] > 0) {
      std::uint32_t prev = dag.index(streams[stream_of[k]][pos[k] - 1]);
      ++missing[k];
      next[prev].push_back(static_cast<std::uint32_t>(k));
    }
  }
  std::vector<std::uint32_t> ready;
  for (std::size_t k = 0; k < n; ++k)
    if (stream_of[k] != none && missing[k] == 0) ready.push_back(static_cast<std::uint32_t>(k));
  std::size_t done = 0;
  std::vector<std::uint32_t> clock(S), candidates;
  while (!ready.empty()) {
    std::uint32_t k = ready.back();
    ready.pop_back();
    ++done;
    std::uint32_t s = stream_of[k];
    std::fill(clock.begin(), clock.end(), 0);
    if (pos[k] > 0) {
      std::uint32_t prev = dag.index(streams[s][pos[k] - 1]);
      std::copy_n(&after[prev * S], S, clock.begin());
    }
    auto covers = [&](std::uint32_t const* c, std::uint32_t p) { return c[stream_of[p]] > pos[p]; };
    candidates.clear();
    for (std::uint32_t p : dag.preds(k))
      if (stream_of[p] != none && stream_of[p] != s && !covers(clock.data(), p)) candidates.push_back(p);
    std::vector<NodeId> waits;
    for (std::uint32_t p : candidates) {
      bool implied = std::ranges::any_of(candidates, [&](std::uint32_t q) { return q != p && covers(&after[q * S], p); });
      if (!implied) waits.push_back(p);
    }
    for (std::uint32_t w : waits)
      for (std::size_t t = 0; t < S; ++t) clock[t] = std::max(clock[t], after[w * S + t]);
    clock[s] = pos[k] + 1;
    std::copy(clock.begin(), clock.end(), &after[k * S]);
    Launch& l = out.streams[s][pos[k]];
    l.node = dag.node(k);
    for (std::uint32_t w : waits) l.waits.push_back(dag.node(w));
    for (std::uint32_t m : next[k])
      if (--missing[m] == 0) ready.push_back(m);
  }
  if (done != launched) {
    for (std::size_t k = 0; k < n; ++k)
      if (stream_of[k] != none && missing[k] != 0)
        throw ScheduleError("stream " + std::to_string(stream_of[k]) + " runs node " + std::to_string(dag.node(k)) +
                            " before a kernel it depends on");
  }
  return out;
}
#endif

/// Counts of a checked schedule.
struct ScheduleStats {
  std::size_t kernels = 0, streams = 0, waits = 0;
};

/// Checks that `s` runs the kernels of `dag` (all of them when `complete`) and that every
/// dependency between launched kernels is enforced by stream order and waits.
/// @throws ScheduleError naming the first problem.
ScheduleStats check_schedule(KernelDag const& dag, Schedule const& s, bool complete = true);
#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE ScheduleStats check_schedule(KernelDag const& dag, Schedule const& s, bool complete) {
  HappensBefore hb;
  hb.build(s);
  for (auto const& stream : s.streams)
    for (auto const& l : stream)
      if (!dag.is_kernel(l.node)) throw ScheduleError("the schedule launches node " + std::to_string(l.node) + ", which runs no kernel");
  for (std::size_t k = 0; k < dag.size(); ++k) {
    NodeId v = dag.node(k);
    if (!hb.scheduled(v)) {
      if (complete) throw ScheduleError("the schedule never launches node " + std::to_string(v));
      continue;
    }
    for (std::uint32_t p : dag.preds(k)) {
      NodeId u = dag.node(p);
      if (hb.scheduled(u) && !hb.before(u, v))
        throw ScheduleError("node " + std::to_string(v) + " (stream " + std::to_string(hb.stream(v)) + ") may start before node " +
                            std::to_string(u) + " (stream " + std::to_string(hb.stream(u)) + "), which it reads");
    }
  }
  return {s.num_kernels(), s.num_streams(), s.num_waits()};
}
#endif

}  // namespace autograph
