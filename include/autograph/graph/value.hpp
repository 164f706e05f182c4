#pragma once
#include <compare>
#include <cstdint>
#include <limits>

namespace autograph {

using NodeId = std::uint32_t;
inline constexpr NodeId no_node = std::numeric_limits<NodeId>::max();

/// A value in a graph: output `port` of node `node`.
struct Value {
  NodeId node = no_node;
  std::uint32_t port = 0;
  friend constexpr auto operator<=>(Value, Value) = default;
};

/// One reader of a value: input slot `input` of node `node`.
struct Use {
  NodeId node = no_node;
  std::uint32_t input = 0;
  friend constexpr auto operator<=>(Use, Use) = default;
};

}  // namespace autograph
