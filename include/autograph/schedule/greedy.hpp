#pragma once
// Greedy list scheduling onto k streams: kernels in order of their longest remaining path
// (the "bottom level", the classic list-scheduling priority), each placed on the stream
// where it can start earliest, by kernel times asked of a runtime. It ignores that
// concurrent kernels share the device, which is what it is here to be compared against.
#include <chrono>
#include <queue>
#include <vector>

#include "autograph/schedule/detail/kernel_times.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::schedule {

/// @pre times_ms[k] is kernel k's time; streams >= 1.
inline Schedule greedy(KernelDag const& dag, std::vector<double> const& times_ms, std::size_t streams) {
  if (streams == 0) throw ScheduleError("greedy scheduling needs at least one stream");
  std::size_t n = dag.size();
  // More streams than kernels stay empty: the schedule is the same with one per kernel, and
  // a huge count (--streams 99999999999) would only allocate empty lists.
  streams = std::min(streams, std::max<std::size_t>(n, 1));
  std::vector<double> bottom(n, 0);
  for (std::size_t k = n; k-- > 0;) {
    double longest = 0;
    for (std::uint32_t s : dag.succs(k)) longest = std::max(longest, bottom[s]);
    bottom[k] = times_ms[k] + longest;
  }
  auto lower_priority = [&](std::uint32_t a, std::uint32_t b) { return bottom[a] != bottom[b] ? bottom[a] < bottom[b] : a > b; };
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(lower_priority)> ready(lower_priority);
  std::vector<std::size_t> missing(n);
  for (std::size_t k = 0; k < n; ++k) {
    missing[k] = dag.preds(k).size();
    if (missing[k] == 0) ready.push(static_cast<std::uint32_t>(k));
  }
  std::vector<double> free_at(streams, 0), finish(n, 0);
  std::vector<std::size_t> stream_of(n, 0);
  std::vector<std::vector<NodeId>> lists(streams);
  while (!ready.empty()) {
    std::uint32_t k = ready.top();
    ready.pop();
    double deps = 0;
    std::size_t last_stream = 0;  // the stream of the producer that finishes last: no wait needed there
    for (std::uint32_t p : dag.preds(k))
      if (finish[p] >= deps) {
        deps = finish[p];
        last_stream = stream_of[p];
      }
    std::size_t best = last_stream;
    double best_start = std::max(deps, free_at[best]);
    for (std::size_t t = 0; t < streams; ++t) {
      double start = std::max(deps, free_at[t]);
      if (start < best_start) {
        best = t;
        best_start = start;
      }
    }
    stream_of[k] = best;
    finish[k] = best_start + times_ms[k];
    free_at[best] = finish[k];
    lists[best].push_back(dag.node(k));
    for (std::uint32_t s : dag.succs(k))
      if (--missing[s] == 0) ready.push(s);
  }
  std::erase_if(lists, [](auto const& l) { return l.empty(); });
  return insert_waits(dag, lists);
}

struct Greedy {
  static constexpr std::string_view name = "greedy";
  std::size_t streams = 4;

  template <class Set, class R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R& runtime) const {
    auto t0 = std::chrono::steady_clock::now();
    KernelDag dag(g);
    auto prepared = prepare(runtime, g);
    Schedule s = greedy(dag, detail::kernel_times_ms(dag, prepared), streams);
    return {g, std::move(s), std::string(name), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
};

}  // namespace autograph::schedule
