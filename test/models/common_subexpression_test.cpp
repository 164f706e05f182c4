// The zoo's repeated kernels, which eliminate-common-subexpression removes (and onnxruntime's
// CommonSubexpressionElimination did before every run of our exported models): NASNet-A
// applies its own ReLU to a cell input in each separable branch that reads it and pools it in
// several branches; RandWire's nodes each apply a ReLU to the same aggregated input. Counted
// on our ONNX exports of the models (same op type, inputs and attributes): NASNet-A Mobile 60
// ReLUs, 12 average and 4 max pools; RandWire 17 ReLUs and one Add; none in the other CNNs.
#include <map>

#include <autograph/models/inception_v3.hpp>
#include <autograph/models/nasnet.hpp>
#include <autograph/models/randwire.hpp>
#include <autograph/models/resnet.hpp>
#include <autograph/models/squeezenet.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/library/common_subexpression.hpp>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

/// ONNX's name for the op of node `id` (pools by kind).
std::string onnx_type(Graph<> const& g, NodeId id) {
  if (auto const* p = g[id].op.get_if<Pool2D>()) return p->kind == PoolKind::max ? "MaxPool" : "AvgPool";
  return std::string(g[id].op.name());
}

/// Nodes removed per op type.
std::map<std::string, std::size_t> eliminated(Graph<> const& g) {
  auto r = rules::apply_greedily(g, rules::EliminateCommonSubexpression{});
  validate(r.graph);
  std::map<std::string, std::size_t> before, gone;
  for (NodeId id : g.node_ids()) ++before[onnx_type(g, id)];
  for (NodeId id : r.graph.node_ids()) --before[onnx_type(r.graph, id)];
  for (auto const& [op, n] : before)
    if (n) gone[op] = n;
  EXPECT_EQ(r.total_applications(), g.num_nodes() - r.graph.num_nodes());
  return gone;
}

using Counts = std::map<std::string, std::size_t>;

TEST(CommonSubexpressions, NasNetAMobileRepeatsReLUsAndPools) {
  EXPECT_EQ(eliminated(nasnet_a_mobile()), (Counts{{"Relu", 60}, {"AvgPool", 12}, {"MaxPool", 4}}));
}

TEST(CommonSubexpressions, RandWireRepeatsReLUs) { EXPECT_EQ(eliminated(randwire_ws()), (Counts{{"Relu", 17}, {"Add", 1}})); }

TEST(CommonSubexpressions, TheOtherCnnsRepeatNothing) {
  EXPECT_EQ(eliminated(inception_v3()), Counts{});
  EXPECT_EQ(eliminated(resnet50()), Counts{});
  EXPECT_EQ(eliminated(resnext50_32x4d()), Counts{});
  EXPECT_EQ(eliminated(squeezenet1_1()), Counts{});
}

}  // namespace
}  // namespace autograph::models
