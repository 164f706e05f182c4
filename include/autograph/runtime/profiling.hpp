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
/// layout its kernel wants); the others are graph inputs. With `own_constants` each copy reads
/// weights of its own, as the layers of a model do: copies sharing one weight find it in the
/// cache, which a layer reading its weights once a run does not (a 4 MB weight of BERT's
/// linear layers stays in this machine's 32 MB L3 across copies).
template <class Set>
Graph<Set> copies_graph(AnyOp const& op, std::span<TensorDesc const> in, int copies, std::span<char const> constant = {}, bool own_constants = false) {
  Graph<Set> h;
  auto is_constant = [&](std::size_t i) { return i < constant.size() && constant[i]; };
  auto source = [&](std::size_t i, int copy) -> Value {
    AnyOp src = is_constant(i) ? AnyOp{Weight{.desc = in[i], .id = static_cast<std::uint64_t>(copy) * in.size() + i + 1}}
                               : AnyOp{Input{in[i], "in" + std::to_string(i)}};
    return {h.add(std::move(src), std::span<Value const>{}), 0};
  };
  std::vector<Value> shared;
  for (std::size_t i = 0; i < in.size(); ++i) shared.push_back(source(i, 0));
  std::vector<Value> outputs;
  for (int c = 0; c < copies; ++c) {
    std::vector<Value> inputs = shared;
    if (own_constants && c > 0)
      for (std::size_t i = 0; i < in.size(); ++i)
        if (is_constant(i)) inputs[i] = source(i, c);
    NodeId n = h.add(op, std::span<Value const>(inputs));
    for (std::uint32_t p = 0; p < h[n].outputs.size(); ++p) outputs.push_back({n, p});
  }
  h.set_outputs(std::move(outputs));
  return h;
}


}  // namespace autograph
