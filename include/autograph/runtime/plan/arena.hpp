#pragma once
// The memory arena: every intermediate tensor and workspace of a run gets an offset in one
// allocation, planned before the first run from who touches which buffer and the schedule's
// happens-before relation. Device-neutral: the CUDA and the CPU runtime plan the same way.
//
// Two buffers may share bytes only when one is completely done before the other is first
// touched: every access of A happens before every access of B, or the other way round, in
// the order the schedule enforces (stream order plus waits; HappensBefore). On one stream
// that is the usual lifetime rule; across streams it means a buffer read on stream 1 is
// reused by a writer on stream 0 only when that writer waits (directly or transitively) for
// the read. Kernels that might run at the same time never share memory.
//
// Placement is greedy by size (largest first, each at the lowest offset that overlaps no
// conflicting buffer already placed), the heuristic TFLite's arena planner uses; it is exact
// for any conflict relation, which is all correctness needs.
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/schedule/schedule.hpp"

namespace autograph {

struct BufferRequest {
  std::size_t bytes = 0;
  std::vector<NodeId> accessors;  // the launches that read or write it (all scheduled)
  bool pinned = false;            // never shares memory: graph outputs, data a partial schedule assumes present
};

struct ArenaPlan {
  std::vector<std::size_t> offsets;  // one per request, aligned
  std::size_t size = 0;              // bytes the arena needs
  std::size_t unshared = 0;          // bytes without any reuse (the sum of the aligned sizes)
};

/// True when `a` and `b` may occupy the same bytes: all accesses of one happen before all
/// accesses of the other. A node that touches both conflicts (it needs both at once).
/// @pre every accessor is scheduled in `hb`.
inline bool may_share(BufferRequest const& a, BufferRequest const& b, HappensBefore const& hb) {
  if (a.pinned || b.pinned) return false;
  auto all_before = [&](BufferRequest const& first, BufferRequest const& second) {
    return std::ranges::all_of(first.accessors, [&](NodeId p) {
      return std::ranges::all_of(second.accessors, [&](NodeId v) { return p != v && hb.before(p, v); });
    });
  };
  return all_before(a, b) || all_before(b, a);
}

inline std::size_t align_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

/// Offsets for `requests` in one arena.
/// @pre alignment is a power of two; every accessor is scheduled in `hb`.
/// @post two requests overlap only when may_share() holds for them (check_arena verifies it).
inline ArenaPlan plan_arena(std::span<BufferRequest const> requests, HappensBefore const& hb, std::size_t alignment = 256) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) throw Error("arena alignment must be a power of two");
  ArenaPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::ranges::stable_sort(order, std::greater<>{}, [&](std::size_t i) { return requests[i].bytes; });

  struct Interval {
    std::size_t begin, end;
  };
  std::vector<std::size_t> placed;
  std::vector<Interval> blocked;
  for (std::size_t i : order) {
    std::size_t size = align_up(requests[i].bytes, alignment);
    plan.unshared += size;
    if (size == 0) continue;
    blocked.clear();
    for (std::size_t j : placed)
      if (!may_share(requests[i], requests[j], hb)) blocked.push_back({plan.offsets[j], plan.offsets[j] + align_up(requests[j].bytes, alignment)});
    std::ranges::sort(blocked, {}, &Interval::begin);
    std::size_t at = 0;
    for (Interval const& b : blocked) {
      if (b.begin >= at + size) break;  // the gap before b fits
      at = std::max(at, b.end);
    }
    plan.offsets[i] = at;
    plan.size = std::max(plan.size, at + size);
    placed.push_back(i);
  }
  return plan;
}

/// Verifies a plan: every offset aligned and inside the arena, and no two requests that may
/// not share memory overlap. @throws Error naming the first offending pair.
inline void check_arena(ArenaPlan const& plan, std::span<BufferRequest const> requests, HappensBefore const& hb, std::size_t alignment = 256) {
  if (plan.offsets.size() != requests.size()) throw Error("arena plan has " + std::to_string(plan.offsets.size()) + " offsets for " +
                                                          std::to_string(requests.size()) + " buffers");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (plan.offsets[i] % alignment != 0) throw Error("arena buffer " + std::to_string(i) + " is misaligned");
    if (plan.offsets[i] + requests[i].bytes > plan.size) throw Error("arena buffer " + std::to_string(i) + " ends past the arena");
  }
  for (std::size_t i = 0; i < requests.size(); ++i)
    for (std::size_t j = i + 1; j < requests.size(); ++j) {
      if (requests[i].bytes == 0 || requests[j].bytes == 0) continue;
      bool overlap = plan.offsets[i] < plan.offsets[j] + requests[j].bytes && plan.offsets[j] < plan.offsets[i] + requests[i].bytes;
      if (overlap && !may_share(requests[i], requests[j], hb))
        throw Error("arena buffers " + std::to_string(i) + " and " + std::to_string(j) +
                    " overlap although their accesses are not ordered by the schedule");
    }
}

}  // namespace autograph
