// The graph-level search on the CPU runtime (Collage §4.3): from an op-level placement that
// runs the residual blocks' elementwise chains on our kernels and the convolutions on BLAS,
// individuals are placed, run end to end and measured; what it returns computes what the
// reference computes, and is the search's winner, the op-level placement or the incumbent.
#include <gtest/gtest.h>

#include <autograph/cpu/backends/blas.hpp>
#include <autograph/cpu/backends/graph_level.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/own_kernels.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include "../cpu/matches_reference.hpp"

namespace autograph::cpu {
namespace {

using backends::Blas;
using backends::OneDnn;
using backends::OwnKernels;
using All = Backends<OneDnn, Blas, OwnKernels>;

/// Two residual blocks: conv, BatchNorm, Relu, conv, BatchNorm, Add, Relu.
Graph<> residual_net() {
  GraphBuilder b;
  Value x = b.input("x", {1, 16, 14, 14});
  for (int i = 0; i < 2; ++i) {
    Value y = b.relu(b.batch_norm(b.conv2d(x, 16, {3, 3})));
    x = b.relu(b.add(b.batch_norm(b.conv2d(y, 16, {3, 3})), x));
  }
  auto g = std::move(b).build({x});
  fill_random_weights(g, 5);
  return g;
}

/// place()'s result with synthetic costs: oneDNN's groups cost 10 per op, the others 1, so
/// the op-level placement puts everything it can on BLAS and our kernels.
PlacedGraph op_level(Graph<> const& g, std::vector<std::string> const& allowed) {
  GraphFacts<BuiltinOps> facts(g);
  auto reg = All::registry<BuiltinOps>();
  std::vector<std::string> names;
  for (auto const& e : reg) names.push_back(e.name);
  PlacedGraph r;
  for (auto& c : placement::generate_candidates(facts, reg).candidates)
    if (std::ranges::find(allowed, names[c.backend]) != allowed.end()) r.candidate_groups.push_back(std::move(c));
  for (auto const& c : r.candidate_groups) r.costs.us.push_back(names[c.backend] == "onednn" ? 10.0 * static_cast<double>(c.group.size()) : 1.0);
  auto by_index = [&](placement::Candidate const& c) { return r.costs.us[static_cast<std::size_t>(&c - r.candidate_groups.data())]; };
  r.placement = placement::op_level_dp(facts, std::span<placement::Candidate const>(r.candidate_groups), names, by_index);
  r.graph = placed_graph(All{}, g, r.placement, &r.node_backend);
  return r;
}

TEST(CpuGraphLevel, SearchesFromTheOpLevelPlacementAndRunsLikeTheReference) {
  auto g = residual_net();
  auto start = op_level(g, {"onednn", "blas", "own"});
  auto alone = op_level(g, {"onednn"});
  std::size_t not_onednn = 0;
  for (auto const& pg : start.placement.groups) not_onednn += start.placement.backend_of(pg) != "onednn";
  ASSERT_GT(not_onednn, 3u);
  CpuRuntime cpu({.warmup = 1, .budget_ms = 2});
  auto r = place_graph_level(All{}, g, start, {{"onednn alone", &alone}}, cpu, {.budget_seconds = 3});
  EXPECT_EQ(r.search.digits, not_onednn);  // every BLAS conv and every chain can be offloaded to oneDNN
  EXPECT_GE(r.search.measured, 2u);        // the op-level placement and everything offloaded, at least
  EXPECT_TRUE(r.search.kept == "graph-level search" || r.search.kept == "op-level placement" || r.search.kept == "onednn alone") << r.search.kept;
  auto in = std::vector<Tensor>{Tensor::random(g[g.inputs()[0]].outputs[0].shape, 9)};
  auto exe = cpu.compile(r.graph, schedule::sequential(KernelDag(r.graph)));
  EXPECT_TRUE(test::matches(exe.run(in), ReferenceExecutor<>().run(g, in), 1e-4));
  EXPECT_THROW(place_graph_level(All{}, g, start, {}, cpu, {.target = "tensorrt"}), Error);
}

}  // namespace
}  // namespace autograph::cpu
