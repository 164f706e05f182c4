#pragma once
// LayoutModel: what the op-level DP needs to charge layout conversions where the runtime does
// them (issue 17). A runtime that keeps tensors in a fast layout between the kernels that take
// it — the CPU runtime's channels-last (cpu/lower.hpp, choose_channels_last) — keeps a value fast
// only when its producer gives it fast and every reader takes it fast, and never a graph input
// or output; any other value lies plain, and each end of it that wanted it fast converts it
// (a producer writes it plain, a reader reads it plain: one conversion each). So a conversion
// belongs to an edge between groups and depends on the groups at both ends: charged to each
// group alone, as if every neighbour wanted the fast layout, a chain of plain kernels pays a
// conversion at every group although the runtime converts once at each end of the chain.
#include <functional>
#include <vector>

#include "autograph/graph/value.hpp"
#include "autograph/placement/candidate.hpp"

namespace autograph::placement {

/// Where one candidate's kernel wants the values it reads and writes.
struct GroupLayout {
  std::vector<Value> takes_fast;  // values it reads from outside the group and takes in the fast layout
  std::vector<Value> gives_fast;  // values it writes for readers outside the group (or as graph outputs) in the fast layout
};

/// The layouts of the candidates and the cost of a conversion. Both empty: no layouts (every
/// value has one layout, nothing is charged).
struct LayoutModel {
  std::function<GroupLayout(Candidate const&)> layout;  // called once per candidate
  /// The cost of converting `v` once between the layouts, in the unit of the groups' costs;
  /// 0 for a value that has one layout (a weight, a tensor the fast layout does not apply to).
  std::function<double(Value)> conversion;

  bool enabled() const { return static_cast<bool>(layout) && static_cast<bool>(conversion); }
};

}  // namespace autograph::placement
