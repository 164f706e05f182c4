// PlannedGraph, the lowered-graph description both runtimes share, and the checks that belong
// to the plan (check_planned_graph): a description built as the lowering drivers build it
// passes; one with preds that are not the kernel DAG's, a kernel the DAG does not launch,
// nodes out of topological order, or a view that does not resolve to memory or runs past it
// does not.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/topological_order.hpp>
#include <autograph/runtime/plan/planned_graph_check.hpp>
#include <autograph/runtime/plan/schedule_check.hpp>
#include <autograph/schedule/kernel_dag.hpp>
#include <autograph/schedule/sequential.hpp>

namespace autograph {
namespace {

struct NoPayload {};
using Planned = PlannedGraph<NoPayload>;
using Kind = PlannedValue::Kind;

/// `g` described as a lowering driver does: inputs get static buffers, kernels write
/// buffers, every other node's outputs are ranges of its first input.
Planned describe(Graph<> const& g) {
  auto kernel = kernel_mask(g);
  Planned p;
  p.reset(g.id_bound());
  for (NodeId id : topological_order(g)) {
    auto const& n = g[id];
    if (auto const* in = n.get_if<Input>()) {
      p.add_input(id, in->label, in->desc);
      continue;
    }
    Planned::Node node;
    node.id = id;
    node.label = g.label(id);
    node.kernel = kernel[id] != 0;
    for (Value v : n.inputs) node.inputs.push_back(p.value(v));
    std::int64_t offset = 0;
    for (auto const& d : n.outputs) {
      auto v = p.add_value(id, d, node.kernel ? Kind::buffer : Kind::view);
      if (!node.kernel) p.make_view(v, node.inputs[0], offset), offset += d.numel();
      node.outputs.push_back(v);
    }
    p.add_node(std::move(node));
  }
  p.set_preds(KernelDag(g, kernel));
  p.set_outputs(g.outputs());
  return p;
}

/// x -> relu a -> reshape r (a view) -> split (views) -> add b of the halves -> relu c.
Graph<> chain() {
  GraphBuilder<> b;
  auto x = b.input("x", Shape{2, 8});
  auto a = b.relu(x, "a");
  auto r = b.reshape(a, {16}, "r");
  auto halves = b.split(r, 0, {8, 8}, "halves");
  auto s = b.add(halves[0], halves[1], "b");
  return std::move(b).build({b.relu(s, "c")});
}

NodeId id_of(Graph<> const& g, std::string const& label) {
  for (NodeId id : g.node_ids())
    if (g[id].name == label) return id;
  throw Error("no node " + label);
}

void expect_refused(Planned const& p, Graph<> const& g, std::string const& why) {
  try {
    check_planned_graph(p, KernelDag(g));
    ADD_FAILURE() << "accepted a description where " << why;
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

TEST(PlannedGraph, DescribesAGraphAsTheLoweringDriversDo) {
  Graph<> g = chain();
  Planned p = describe(g);
  EXPECT_NO_THROW(check_planned_graph(p, KernelDag(g)));
  ASSERT_EQ(p.nodes.size(), 5u);  // every node but the input, in topological order
  EXPECT_EQ(p.inputs.size(), 1u);
  auto const* b = p.node(id_of(g, "b"));
  ASSERT_TRUE(b);
  EXPECT_EQ(b->preds, std::vector<NodeId>{id_of(g, "a")});  // through the views: the kernel that wrote the bytes
  auto second_half = b->inputs[1];
  EXPECT_EQ(p.values[second_half].kind, Kind::view);
  EXPECT_EQ(p.root(second_half), std::pair(p.value(Value{id_of(g, "a"), 0}), std::int64_t{8}));
  EXPECT_EQ(p.values[second_half].alignment, 32u);  // 8 floats past a 256-byte aligned buffer
  EXPECT_NO_THROW(validate_schedule(p, happens_before(p, schedule::sequential(KernelDag(g))), true));
}

TEST(PlannedGraph, RefusesPredsThatAreNotTheKernelDags) {
  Graph<> g = chain();
  Planned p = describe(g);
  p.nodes[p.node_index[id_of(g, "c")]].preds.clear();
  expect_refused(p, g, "its preds are not the kernel DAG's");
}

TEST(PlannedGraph, RefusesAKernelTheDagDoesNotLaunch) {
  Graph<> g = chain();
  Planned p = describe(g);
  p.nodes[p.node_index[id_of(g, "r")]].kernel = true;
  expect_refused(p, g, "which the kernel DAG does not launch");
}

TEST(PlannedGraph, RefusesNodesOutOfTopologicalOrder) {
  Graph<> g = chain();
  Planned p = describe(g);
  std::swap(p.nodes[0], p.nodes[1]);
  for (std::uint32_t i = 0; i < p.nodes.size(); ++i) p.node_index[p.nodes[i].id] = i;
  expect_refused(p, g, "before its writer");
}

TEST(PlannedGraph, RefusesAViewThatDoesNotResolveToMemory) {
  Graph<> g = chain();
  Planned p = describe(g);
  auto r = p.value(Value{id_of(g, "r"), 0});
  auto a = p.value(Value{id_of(g, "a"), 0});
  p.values[a].parent = r;  // r is a view of a: a cycle
  expect_refused(p, g, "does not resolve to a root");
  p = describe(g);
  p.values[a].kind = Kind::empty;
  expect_refused(p, g, "which holds no memory");
}

TEST(PlannedGraph, RefusesAViewPastItsRoot) {
  Graph<> g = chain();
  Planned p = describe(g);
  p.values[p.value(Value{id_of(g, "halves"), 1})].offset = 9;
  expect_refused(p, g, "runs past its root");
  EXPECT_THROW(p.make_view(p.value(Value{id_of(g, "halves"), 0}), p.value(Value{id_of(g, "a"), 0}), 9), Error);
}

TEST(PlannedGraph, SchedulesAreCheckedAgainstTheDescription) {
  Graph<> g = chain();
  Planned p = describe(g);
  Schedule s = schedule::sequential(KernelDag(g));
  s.streams[0].erase(s.streams[0].begin());  // never launches a
  EXPECT_THROW(validate_schedule(p, happens_before(p, s), true), ScheduleError);
  Schedule views = schedule::sequential(KernelDag(g));
  views.streams[0].push_back(Launch{id_of(g, "r"), {}});  // a view launched as a kernel
  EXPECT_THROW(validate_schedule(p, happens_before(p, views), true), ScheduleError);
}

}  // namespace
}  // namespace autograph
