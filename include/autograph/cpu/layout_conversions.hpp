#pragma once
// The layout conversions a lowered graph runs: each end of a 4-D value that its kernel would
// take or give channels-last but that lies plain (lowering keeps a value channels-last only
// when its producer gives it so and every reader takes it so: choose_channels_last,
// cpu/lower.hpp). A kernel then reads or writes that value plain — a oneDNN convolution
// reorders it (src/cpu/convolution.cpp) — which the op-level placement charges as one
// conversion per end (placement/layout_model.hpp). This counts what the runtime does, so tests
// can hold the placement's count to it.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "autograph/cpu/lowered_graph.hpp"

namespace autograph::cpu {

/// Ends of 4-D activation values (graph inputs, kernel outputs and views; not constants, not
/// empty) where a kernel that takes or gives channels-last meets a plain value, each value
/// counted once per reading kernel.
inline std::size_t layout_conversions(CpuGraph const& g) {
  using Kind = PlannedValue::Kind;
  auto activation_4d = [&](std::uint32_t v) {
    auto const& pv = g.values[v];
    return (pv.kind == Kind::input || pv.kind == Kind::buffer || pv.kind == Kind::view) && pv.desc.shape.rank() == 4;
  };
  std::size_t r = 0;
  std::vector<std::uint32_t> read;
  for (auto const& n : g.nodes) {
    if (!n.kernel) continue;
    read.clear();
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
      std::uint32_t v = n.inputs[i];
      if (std::ranges::find(read, v) != read.end()) continue;
      read.push_back(v);
      bool takes = i < n.takes_channels_last.size() && n.takes_channels_last[i];
      if (takes && activation_4d(v) && g.layouts[v] == Layout::plain) ++r;
    }
    if (n.gives_channels_last)
      for (std::uint32_t v : n.outputs)
        if (activation_4d(v) && g.layouts[v] == Layout::plain) ++r;
  }
  return r;
}

}  // namespace autograph::cpu
