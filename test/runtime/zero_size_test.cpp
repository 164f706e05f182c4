// Zero-size dimensions (batch 0): an op whose outputs have no elements runs no kernel, costs
// nothing, executes to empty tensors, and no cost model, simulation or kernel divides by a
// zero dimension. Where an empty dimension makes no sense (pooling an image with no rows)
// shape inference says so.
#include <autograph/cost/graph_cost.hpp>
#include <autograph/cost/roofline.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

namespace autograph {
namespace {

constexpr double launch_ms = devices::H100::spec.graph_launch_us / 1000;

/// Every kernel of `g` costs nothing, the simulated run is the graph launch alone, and the
/// reference executor returns tensors of the inferred (empty) output shapes.
void expect_empty_run(Graph<> g) {
  fill_random_weights(g, 1);
  RooflineCost roofline;
  for (NodeId id : g.node_ids()) {
    auto in = input_descs(g, id);
    EXPECT_EQ(roofline.estimate(g[id].op, in, g[id].outputs), KernelCost{}) << g.label(id);
  }
  EXPECT_EQ(total_cost(node_costs(g, roofline)), 0);
  EXPECT_EQ(graph_stats(g).flops, 0);
  EXPECT_DOUBLE_EQ(SimulatedRuntime<>{}.measure(g), launch_ms);
  EXPECT_DOUBLE_EQ((SimulatedRuntime<devices::H100, schedule::Sequential>{}.measure(g)), launch_ms);
  std::vector<Tensor> inputs;
  for (NodeId id : g.inputs()) inputs.emplace_back(g[id].template get_if<Input>()->desc.shape);
  auto out = ReferenceExecutor<>{}.run(g, inputs);
  ASSERT_EQ(out.size(), g.outputs().size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].shape(), g.desc(g.outputs()[i]).shape);
    EXPECT_EQ(out[i].numel(), 0);
  }
}

/// A graph of one op on a batch-0 input of `shape`, built by `op`.
Graph<> one_op(Shape shape, std::function<Value(GraphBuilder<>&, Value)> const& op) {
  GraphBuilder b;
  Value x = b.input("x", shape);
  return std::move(b).build({op(b, x)});
}

TEST(ZeroSize, EveryRepresentativeOpOnABatchOfZeroRunsNothing) {
  // MatMul: the roofline used to divide numel by M*N (SIGFPE).
  expect_empty_run(one_op({0, 4}, [](auto& b, Value x) { return b.linear(x, 8); }));
  expect_empty_run(one_op({2, 0, 4}, [](auto& b, Value x) { return b.matmul(x, b.weight("w", {2, 4, 8})); }));
  expect_empty_run(one_op({0, 3, 16, 16}, [](auto& b, Value x) { return b.conv2d(x, 16, {3, 3}, {.bias = true}); }));
  expect_empty_run(one_op({0, 3, 16, 16}, [](auto& b, Value x) { return b.max_pool(x, {2, 2}, {.stride = {2, 2}}); }));
  expect_empty_run(one_op({0, 3, 16, 16}, [](auto& b, Value x) { return b.global_avg_pool(x); }));
  expect_empty_run(one_op({0, 10}, [](auto& b, Value x) { return b.softmax(x); }));
  expect_empty_run(one_op({0, 3, 4}, [](auto& b, Value x) { return b.add(Reduce{.axes = {1}}, {x}); }));
  expect_empty_run(one_op({0, 3}, [](auto& b, Value x) { return b.concat({x, b.relu(x)}, 1); }));
  expect_empty_run(one_op({0, 6}, [](auto& b, Value x) { return b.layer_norm(x); }));
  expect_empty_run(one_op({0, 8}, [](auto& b, Value x) { return b.reshape(b.relu(x), {0, 2, 4}); }));
}

TEST(ZeroSize, AnEmptyInnerDimensionGivesZerosOrAClearError) {
  // A MatMul over K = 0 sums nothing: zeros, and a kernel that writes them.
  GraphBuilder b;
  Value a = b.input("a", {2, 0});
  auto g = std::move(b).build({b.matmul(a, b.weight("w", {0, 3}))});
  fill_random_weights(g, 1);
  auto out = ReferenceExecutor<>{}.run(g, {Tensor(Shape{2, 0})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  for (float v : out[0].data()) EXPECT_EQ(v, 0.f);
  EXPECT_GT(SimulatedRuntime<>{}.measure(g), launch_ms);

  // Reducing an empty axis: the sum of nothing is 0, the mean 0/0 (NaN, as NumPy and PyTorch).
  for (ReduceKind kind : {ReduceKind::sum, ReduceKind::mean}) {
    GraphBuilder r;
    Value x = r.input("x", {2, 0});
    auto rg = std::move(r).build({r.add(Reduce{.kind = kind, .axes = {1}, .keepdims = false}, {x})});
    auto y = ReferenceExecutor<>{}.run(rg, {Tensor(Shape{2, 0})});
    ASSERT_EQ(y[0].shape(), (Shape{2}));
    for (float v : y[0].data()) EXPECT_TRUE(kind == ReduceKind::sum ? v == 0.f : std::isnan(v)) << v;
  }

  // Pooling an image with no rows has no value to give.
  GraphBuilder p;
  Value x = p.input("x", {1, 3, 0, 16});
  try {
    p.max_pool(x, {2, 2}, {}, "pool");
    ADD_FAILURE() << "pooled an empty image";
  } catch (ShapeError const& e) {
    EXPECT_NE(std::string(e.what()).find("Pool2D 'pool'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[1,3,0,16]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(p.global_avg_pool(x), ShapeError);
}

/// `g` with its batch (the first dimension of every input) changed from `from` to `to`, shapes
/// inferred again; a Reshape whose target starts with the batch keeps it, as the model builders
/// would have written it (they reshape to {b.shape(x)[0], ...}).
Graph<> rebatched(Graph<> const& g, std::int64_t from, std::int64_t to) {
  Graph<> r;
  std::vector<NodeId> copy(g.id_bound(), no_node);
  for (NodeId id : topological_order(g)) {
    auto const& n = g[id];
    AnyOp op = n.op;
    if (auto const* in = n.get_if<Input>()) {
      Input batch = *in;
      batch.desc.shape[0] = to;
      op = batch;
    } else if (auto const* rs = n.get_if<Reshape>(); rs && !rs->shape.empty() && rs->shape[0] == from) {
      Reshape batch = *rs;
      batch.shape[0] = to;
      op = batch;
    }
    std::vector<Value> ins;
    for (Value v : n.inputs) ins.push_back({copy[v.node], v.port});
    copy[id] = r.add(op, std::span<Value const>(ins), n.name);
  }
  std::vector<Value> outs;
  for (Value v : g.outputs()) outs.push_back({copy[v.node], v.port});
  r.set_outputs(outs);
  return r;
}

TEST(ZeroSize, EveryZooNetworkWithABatchOfZeroRunsToEmptyOutputs) {
  // The builders refuse batch 0 themselves (models::build says "batch must be >= 1"); the
  // library below them takes it.
  EXPECT_THROW(models::build("squeezenet1_1", {.batch = 0}), Error);
  for (auto const& m : models::zoo()) {
    if (m.name == "rnntc_sru") continue;  // its batch is the second dimension of its input
    if (m.skip_in_sweeps) continue;       // filling its weights costs gigabytes or repeats a smaller entry
    SCOPED_TRACE(std::string(m.name));
    // TASO's BERT has no batch dimension at batch 1 (its first is the tokens); batch 2 adds one.
    auto g = m.build(m.name == "bert" ? models::ModelOptions{.batch = 2} : models::ModelOptions{});
    std::int64_t batch = g.desc(Value{g.inputs().at(0)}).shape[0];
    // ViT's and SETR's class token and DETR's object queries are weights with one row per image:
    // an input alone cannot change the batch, and shape inference says where.
    std::pair<std::string_view, char const*> const per_image[] = {
        {"vit_b_16", "Concat 'tokens' with inputs ([1,1,768], [0,196,768])"},
        {"setr_naive_base", "Concat 'tokens' with inputs ([1,1,768], [0,576,768])"},
        {"detr_r50_e3", "Reshape 'query_embed.unsqueeze' with inputs ([100,256]): Reshape [100,256] to [0,100,256]"}};
    if (auto it = std::ranges::find(per_image, m.name, [](auto const& p) { return p.first; }); it != std::end(per_image)) {
      try {
        rebatched(g, batch, 0);
        ADD_FAILURE() << "tiled a weight of batch 1 to a batch of 0";
      } catch (ShapeError const& e) {
        EXPECT_NE(std::string(e.what()).find(it->second), std::string::npos) << e.what();
      }
      continue;
    }
    expect_empty_run(rebatched(g, batch, 0));
  }
}

}  // namespace
}  // namespace autograph
