#pragma once
// CpuGraph: a graph as the CPU runtime holds it once every node has been lowered. Where each
// value lives, the nodes in topological order and their kernel DAG edges are the
// device-neutral description the CUDA runtime shares (PlannedGraph,
// runtime/plan/planned_graph.hpp), so both runtimes plan memory for and run the same plan; the
// CPU runtime adds how each kernel is prepared, the layout of each value and the constants'
// host values. It no longer depends on the operator set: everything after lowering (the memory
// plan, binding, the stream threads) is compiled once, in the autograph_cpu library.
#include <functional>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/kernel.hpp"
#include "autograph/runtime/plan/planned_graph.hpp"

namespace autograph::cpu {

/// What the CPU runtime adds to each lowered node (PlannedNode).
struct CpuNodePreparation {
  std::vector<char> constant_inputs;           // per input: a constant (its data is there before any run)
  std::function<void(Preparation&)> prepare;   // the op's Kernel<Op>::prepare (set for kernels)
  bool fallback = false;                       // runs through its reference kernel: allocates on every run
  std::vector<char> takes_channels_last;       // per input: its Kernel may read it channels-last
  bool gives_channels_last = false;            // its Kernel may write its 4-D outputs channels-last
  double flops = 0, bytes = 0;                 // the op's FLOPs and bytes moved: the threads it is worth (threads_worth.hpp)
};

struct CpuGraph : PlannedGraph<CpuNodePreparation> {
  std::vector<Layout> layouts;  // by value id: how it lies in memory (plain unless lowering chose channels-last)
  std::vector<Tensor> constants;  // by slot

  /// Nodes that run through their reference kernel ("Resize 'up'"), which allocate on every run.
  std::vector<std::string> fallbacks() const {
    std::vector<std::string> r;
    for (auto const& n : nodes)
      if (n.fallback) r.push_back(n.label);
    return r;
  }
};

}  // namespace autograph::cpu
