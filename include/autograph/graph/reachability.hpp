#pragma once
// Transitive closure of a graph as one bit row per node: reaches(a, b) is true when a path
// leads from a to b. Built in reverse topological order, one OR of rows per edge.
#include <bit>
#include <cstdint>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

class Reachability {
 public:
  Reachability() = default;
  template <class Set>
  explicit Reachability(Graph<Set> const& g) : n_(g.id_bound()), words_((n_ + 63) / 64), bits_(n_ * words_, 0) {
    auto order = topological_order(g);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      NodeId a = *it;
      for (Use u : g.users(a)) {
        set(a, u.node);
        or_row(a, u.node);
      }
    }
  }
  /// True when a path of at least one edge leads from a to b.
  bool reaches(NodeId a, NodeId b) const { return (bits_[a * words_ + b / 64] >> (b % 64)) & 1u; }
  /// Neither reaches the other: the two may run concurrently.
  bool independent(NodeId a, NodeId b) const { return a != b && !reaches(a, b) && !reaches(b, a); }
  std::size_t descendants(NodeId a) const {
    std::size_t c = 0;
    for (std::size_t w = 0; w < words_; ++w) c += static_cast<std::size_t>(std::popcount(bits_[a * words_ + w]));
    return c;
  }

 private:
  void set(NodeId a, NodeId b) { bits_[a * words_ + b / 64] |= std::uint64_t{1} << (b % 64); }
  void or_row(NodeId dst, NodeId src) {
    for (std::size_t w = 0; w < words_; ++w) bits_[dst * words_ + w] |= bits_[src * words_ + w];
  }
  std::size_t n_ = 0, words_ = 0;
  std::vector<std::uint64_t> bits_;
};

}  // namespace autograph
