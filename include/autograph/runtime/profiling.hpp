#pragma once
// What the CUDA and the CPU profilers share (cuda/profiler.hpp, cpu/profiler.hpp): the graph
// whose timing gives one kernel's marginal cost, and the date a profile records.
#include <span>
#include <string>
#include <vector>

#include "autograph/core/utc_now.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/ops/source.hpp"

namespace autograph {

/// `copies` independent applications of `op` to the same inputs (of descriptors `in`), every
/// output a graph output. Timing it for 1 and for n copies gives one kernel's marginal cost,
/// the fixed cost of a run cancelled: (T(n) - T(1)) / (n - 1). An input with `constant[i]` set
/// is a Weight, as the model's constants are (a runtime prepares a constant once, e.g. in the
/// layout its kernel wants); the others are graph inputs.
template <class Set>
Graph<Set> copies_graph(AnyOp const& op, std::span<TensorDesc const> in, int copies, std::span<char const> constant = {}) {
  Graph<Set> h;
  std::vector<Value> inputs;
  for (std::size_t i = 0; i < in.size(); ++i) {
    AnyOp source = i < constant.size() && constant[i] ? AnyOp{Weight{.desc = in[i], .id = i + 1}} : AnyOp{Input{in[i], "in" + std::to_string(i)}};
    inputs.push_back({h.add(std::move(source), std::span<Value const>{}), 0});
  }
  std::vector<Value> outputs;
  for (int c = 0; c < copies; ++c) {
    NodeId n = h.add(op, std::span<Value const>(inputs));
    for (std::uint32_t p = 0; p < h[n].outputs.size(); ++p) outputs.push_back({n, p});
  }
  h.set_outputs(std::move(outputs));
  return h;
}


}  // namespace autograph
