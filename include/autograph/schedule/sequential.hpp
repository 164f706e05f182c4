#pragma once
// The sequential schedule: one stream, kernels in topological order (what a framework without
// inter-operator parallelism runs).
#include <chrono>

#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/policy.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::schedule {

inline Schedule sequential(KernelDag const& dag) {
  std::vector<std::vector<NodeId>> streams(1);
  streams[0].assign(dag.nodes().begin(), dag.nodes().end());
  return insert_waits(dag, streams);
}

struct Sequential {
  static constexpr std::string_view name = "sequential";
  template <class Set, class R>
  ScheduledGraph<Set> operator()(Graph<Set> const& g, R&) const {
    auto t0 = std::chrono::steady_clock::now();
    Schedule s = sequential(KernelDag(g));
    return {g, std::move(s), std::string(name), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
  }
};

}  // namespace autograph::schedule
