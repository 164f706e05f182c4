#pragma once
// Toy inputs for the search's algorithms: independent relu chains, each its own part, and a
// rule (id 0) that collapses relu(relu(x)) to relu(x). Cost: the number of operators. And a
// conv-relu chain for the optimizer's runtime tests.
#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/search/rewrite_trail.hpp>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace autograph::toy {

struct CollapseRelus {
  void operator()(Graph<> const& g, auto&& emit) const {
    for (NodeId id : g.node_ids()) {
      if (!g[id].is<Relu>() || !g[g[id].inputs[0].node].is<Relu>()) continue;
      Graph<> next = g;
      next.replace_uses(Value{id}, g[id].inputs[0]);
      next.remove_dead();
      emit(std::move(next), RuleId{0});
    }
  }
};
inline double ops(Graph<> const& g) { return static_cast<double>(std::ranges::count_if(g.node_ids(), [&](NodeId id) { return is_operator_node(g, id); })); }

struct Parts {
  std::vector<std::vector<NodeId>> parts;  // a PartList, as search::Partition is
};
struct Chains {
  Graph<> graph;
  Parts part;  // part i: chain i's relus
};
/// Independent relu chains of the given lengths.
inline Chains relu_chains(std::initializer_list<int> lengths) {
  GraphBuilder b;
  std::vector<Value> outs;
  std::vector<std::vector<NodeId>> parts;
  for (int n : lengths) {
    Value v = b.input("x" + std::to_string(parts.size()), {4});
    parts.emplace_back();
    for (int i = 0; i < n; ++i) {
      v = b.relu(v);
      parts.back().push_back(v.node);
    }
    outs.push_back(v);
  }
  Chains c{std::move(b).build(outs), {}};
  c.part.parts = parts;
  return c;
}

/// Three conv -> relu pairs in a row, with weights: three places for fuse-conv-relu.
inline Graph<> conv_relu_chain() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 4, 8, 8});
  for (int i = 0; i < 3; ++i) x = b.relu(b.conv2d(x, 4, {3, 3}, {.pad = Conv2D::same_pad(3, 3)}));
  Graph<> g = std::move(b).build({x});
  fill_random_weights(g, 1);
  return g;
}

}  // namespace autograph::toy
