#pragma once
// The cost of a fusion group, fused and unfused (AutoGTCO §IV-B: PhasePartition's
// Runtime(pair) — a phase's latency is measured), for DPOF's choice.
//
// GroupCostFn: anything callable as cost(graph, group) -> GroupCost. MeasuredGroupCost is the
// one the CLI uses: it cuts the group out of the graph (extract(): the group's inputs become
// boundary inputs, its weights come along) and times that subgraph on a runtime, then times the
// rules' targets cut out of the rewritten graph (apply_group()) the same way. Both are memoised by the rule and
// the group's signature (graph/group_signature.hpp: the ops, attributes, input shapes and
// which values leave the group), so ViT's 12 identical encoder blocks are measured once. With
// cpu::CpuRuntime the cost is measured on this machine; with SimulatedRuntime<Device> it is
// the roofline estimate of that device.
#include <chrono>
#include <concepts>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograph/fusion/fusion_group.hpp"
#include "autograph/graph/graph_facts.hpp"
#include "autograph/graph/group_signature.hpp"
#include "autograph/graph/subgraph.hpp"

namespace autograph::fusion {

struct GroupCost {
  double fused = 0;    // the rule's target alone (+infinity: the rule cannot build it)
  double unfused = 0;  // the matched nodes alone, as separate kernels
  double delta() const { return fused - unfused; }
};

template <class F, class Set>
concept GroupCostFn = requires(F& f, Graph<Set> const& g, FusionGroup const& grp) {
  { f(g, grp) } -> std::convertible_to<GroupCost>;
};

/// Times groups on `Runtime` (anything with `double measure(Graph<Set> const&)`), once per
/// (rule, signature). Keeps references to the runtime and the engine.
template <class Set, class Runtime, class Engine>
class MeasuredGroupCost {
 public:
  MeasuredGroupCost(Runtime& rt, Engine const& engine) : rt_(rt), engine_(engine) {}

  GroupCost operator()(Graph<Set> const& g, FusionGroup const& grp) {
    GraphFacts<Set> facts(g);
    std::string key = grp.rule + ": " + group_signature(facts, NodeGroup{grp.nodes});
    if (auto it = memo_.find(key); it != memo_.end()) {
      ++hits_;
      return it->second;
    }
    auto const start = std::chrono::steady_clock::now();
    GroupCost c;
    c.unfused = rt_.measure(extract(g, grp.nodes).graph);
    std::vector<NodeId> built;
    Graph<Set> fused;
    try {
      fused = apply_group(g, engine_, grp, &built);
    } catch (Error const&) {  // the rule cannot build its target here: never fuse this group
      built.clear();
    }
    c.fused = built.empty() ? std::numeric_limits<double>::infinity() : rt_.measure(extract(fused, built).graph);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    memo_.emplace(std::move(key), c);
    return c;
  }

  std::size_t measured() const { return memo_.size(); }  // distinct groups timed
  std::size_t hits() const { return hits_; }             // groups answered from the memo
  double seconds() const { return seconds_; }            // spent measuring

 private:
  Runtime& rt_;
  Engine const& engine_;
  std::unordered_map<std::string, GroupCost> memo_;
  std::size_t hits_ = 0;
  double seconds_ = 0;
};

}  // namespace autograph::fusion
