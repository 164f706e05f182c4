#pragma once
// Backends for the placement tests, written as a user would write them (placement/backend.hpp):
// a fusion engine's rule (a conv or matmul followed by a chain of elementwise ops, the
// inference BatchNorm counted as one: a per-channel affine), an elementwise-chain rule, a
// per-op backend, and the one-Relu rule the CPU placement tests' backends claim.
#include <autograph/graph/builder.hpp>
#include <autograph/placement/backend_registry.hpp>

namespace autograph::placement::testing {

template <class Set>
bool post_op_node(Graph<Set> const& g, NodeId n) {
  return elementwise_op<Set>(g[n].op) || g[n].op.template is<BatchNorm>();
}

/// One conv/matmul heading the group, every other node a post-op reading the group, one value leaving.
template <class Set>
bool conv_chain(Graph<Set> const& g, std::span<NodeId const> group) {
  std::size_t heads = 0;
  for (NodeId n : group) heads += out_fusable_op(g[n].op);
  if (heads != 1) return false;
  for (NodeId n : group) {
    if (out_fusable_op(g[n].op)) continue;
    if (std::ranges::none_of(group, [&](NodeId m) { return reads(g, n, m); })) return false;
  }
  return escaping_nodes(g, group) == 1;
}

/// Elementwise ops (and inference BatchNorms) reading one another, one value leaving.
template <class Set>
bool elementwise_chain(Graph<Set> const& g, std::span<NodeId const> group) {
  if (group.size() > 1)
    for (NodeId n : group)
      if (std::ranges::none_of(group, [&](NodeId m) { return reads(g, n, m) || reads(g, m, n); })) return false;
  return escaping_nodes(g, group) == 1;
}

struct FusingBackend {
  static constexpr std::string_view name = "fusing";
  template <class Set>
  void declare(BackendSpec<Set>& spec) const {
    spec.add(PatternRule<Set>{.name = "conv-postops",
                              .valid_op = [](Graph<Set> const& g, NodeId n) { return out_fusable_op(g[n].op) || post_op_node(g, n); },
                              .fusion = conv_chain<Set>,
                              .max_size = 4});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
};

struct ChainBackend {
  static constexpr std::string_view name = "chains";
  template <class Set>
  void declare(BackendSpec<Set>& spec) const {
    spec.add(PatternRule<Set>{.name = "elementwise-chain",
                              .valid_op = post_op_node<Set>,
                              .fusion = elementwise_chain<Set>,
                              .max_size = 6});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
};

/// Every op alone.
struct PerOpBackend {
  static constexpr std::string_view name = "per-op";
  template <class Set>
  void declare(BackendSpec<Set>& spec) const {
    spec.add(PatternRule<Set>{.name = "one-op",
                              .valid_op = [](Graph<Set> const&, NodeId) { return true; },
                              .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                              .max_size = 1});
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;
  }
};

/// Every Relu, one per group: what a test backend claims when its kernels are for Relus alone
/// (test/cpu_backends: one that cannot build them, a slow one, one with a size limit).
template <class Set>
PatternRule<Set> one_relu_rule() {
  return PatternRule<Set>{.name = "relu",
                          .valid_op = [](Graph<Set> const& g, NodeId n) { return g[n].template is<Relu>(); },
                          .fusion = [](Graph<Set> const&, std::span<NodeId const>) { return true; },
                          .max_size = 1};
}

/// conv -> relu -> add(., y) -> sigmoid
struct Chain {
  Graph<> g;
  NodeId conv, relu, add, sig;
  Chain() {
    GraphBuilder b;
    auto x = b.input("x", {1, 4, 8, 8}), y = b.input("y", {1, 4, 8, 8});
    auto c = b.conv2d(x, 4, {3, 3});
    auto r = b.relu(c);
    auto a = b.add(r, y);
    auto s = b.sigmoid(a);
    conv = c.node, relu = r.node, add = a.node, sig = s.node;
    g = std::move(b).build({s});
  }
};

}  // namespace autograph::placement::testing
