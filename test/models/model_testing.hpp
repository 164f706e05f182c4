#pragma once
// Helpers the model tests share: run a model on the reference executor, count nodes, compare
// sizes with published figures.
#include <gtest/gtest.h>

#include <autograph/graph/stats.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/models/model_options.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace autograph::models::testing {

/// Runs `g` (weights filled) on the reference executor with uniform random inputs.
inline std::vector<Tensor> run_random(Graph<> const& g, std::uint64_t seed = 1) {
  std::vector<Tensor> in;
  for (NodeId id : g.inputs()) in.push_back(Tensor::random(g[id].outputs[0].shape, seed++));
  return ReferenceExecutor<>().run(g, std::span<Tensor const>(in));
}

inline std::size_t non_finite(Tensor const& t) {
  return static_cast<std::size_t>(std::ranges::count_if(t.data(), [](float v) { return !std::isfinite(v); }));
}

/// Runs `g` and checks its single output has `shape` and only finite values.
inline void expect_runs(Graph<> const& g, Shape const& shape) {
  auto out = run_random(g);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), shape);
  EXPECT_EQ(non_finite(out[0]), 0u) << "of " << out[0].numel() << " outputs";
}

/// How many nodes satisfy `pred(node)`.
template <class F>
std::size_t count_nodes(Graph<> const& g, F pred) {
  std::size_t n = 0;
  for (NodeId id : g.node_ids()) n += pred(g[id]) ? 1 : 0;
  return n;
}
template <class Op>
std::size_t count_ops(Graph<> const& g) {
  return count_nodes(g, [](auto const& n) { return n.template is<Op>(); });
}
/// Nodes whose name ends with `suffix`.
inline std::size_t count_named(Graph<> const& g, std::string const& suffix) {
  return count_nodes(g, [&](auto const& n) { return n.name.ends_with(suffix); });
}

/// |ours / published - 1|.
inline double relative_error(double ours, double published) { return std::fabs(ours / published - 1.0); }

/// The input node's shape (graphs with one input).
inline Shape input_shape(Graph<> const& g) { return g[g.inputs().at(0)].outputs[0].shape; }
inline Shape output_shape(Graph<> const& g) { return g.desc(g.outputs()[0]).shape; }

/// The node called `name`.
inline Graph<>::Node const& node_named(Graph<> const& g, std::string const& name) {
  for (NodeId id : g.node_ids())
    if (g[id].name == name) return g[id];
  throw Error("no node called '" + name + "'");
}
inline Shape shape_named(Graph<> const& g, std::string const& name) { return node_named(g, name).outputs[0].shape; }

/// The data of the weight called `name` (the model must have been built with a weight_seed).
inline Tensor weight_named(Graph<> const& g, std::string const& name) {
  for (NodeId id : g.node_ids())
    if (auto const* w = g[id].get_if<Weight>(); w && g[id].name == name) return Tensor(w->desc.shape, w->data);
  throw Error("no weight called '" + name + "'");
}

}  // namespace autograph::models::testing
