// Graph editing: adding, rewiring, removing, validation, copy-on-write sharing.
#include <autograph/graph/graph.hpp>
#include <autograph/graph/topological_order.hpp>
#include <autograph/graph/validate.hpp>
#include <gtest/gtest.h>

using namespace autograph;

namespace {
struct Diamond {
  Graph<> g;
  NodeId x, a, b, sum;
  Diamond() {
    x = g.add(Input{{Shape{2, 3}}, "x"}, {}, "x");
    a = g.add(Relu{}, {Value{x}}, "a");
    b = g.add(Sigmoid{}, {Value{x}}, "b");
    sum = g.add(Add{}, {Value{a}, Value{b}}, "sum");
    g.set_outputs({Value{sum}});
  }
};
}  // namespace

TEST(Graph, AddInfersAndTracksUsers) {
  Diamond d;
  EXPECT_EQ(d.g.num_nodes(), 4u);
  EXPECT_EQ(d.g.desc(Value{d.sum}).shape, (Shape{2, 3}));
  ASSERT_EQ(d.g.users(d.x).size(), 2u);
  EXPECT_EQ(d.g.users(d.x)[0], (Use{d.a, 0}));
  EXPECT_EQ(d.g.users(d.x)[1], (Use{d.b, 0}));
  EXPECT_TRUE(d.g[d.a].is<Relu>());
  EXPECT_EQ(d.g[d.sum].op_name(), "Add");
  EXPECT_EQ(d.g.label(d.a), "Relu 'a'");
  EXPECT_EQ(d.g.inputs(), std::vector<NodeId>{d.x});
  validate(d.g);
}

TEST(Graph, FailedAddLeavesGraphUnchanged) {
  Diamond d;
  auto before = d.g.num_nodes();
  try {
    d.g.add(MatMul{}, {Value{d.a}, Value{d.b}}, "mm");  // [2,3] x [2,3]: inner dims differ
    FAIL();
  } catch (ShapeError const& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("MatMul 'mm'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("inputs ([2,3], [2,3])"), std::string::npos) << msg;
  }
  EXPECT_THROW(d.g.add(Relu{}, {Value{99}}, "r"), GraphError);
  EXPECT_THROW(d.g.add(Relu{}, {Value{d.a, 1}}, "r"), GraphError);  // Relu has one output
  EXPECT_EQ(d.g.num_nodes(), before);
  EXPECT_EQ(d.g.users(d.a).size(), 1u);
  validate(d.g);
}

TEST(Graph, ATensorOverTwoTo48ElementsIsRefusedNamingTheNode) {
  // A batch of 2^63 - 1 used to build, and statistics overflowed int64 into negative MACs.
  Graph<> g;
  EXPECT_NO_THROW(g.add(Input{{Shape{1 << 16, 1 << 16, 1 << 16}}, "ok"}, {}));  // exactly 2^48
  try {
    g.add(Input{{Shape{9223372036854775807, 3, 224, 224}}, "image"}, {}, "image");
    FAIL();
  } catch (ShapeError const& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("'image'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("[9223372036854775807,3,224,224]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("2^48"), std::string::npos) << msg;
  }
  EXPECT_EQ(g.num_nodes(), 1u);
}

TEST(Graph, ReplaceUsesAndRemove) {
  Diamond d;
  NodeId t = d.g.add(Tanh{}, {Value{d.x}}, "t");
  d.g.replace_uses(Value{d.b}, Value{t});
  EXPECT_EQ(d.g[d.sum].inputs[1], Value{t});
  EXPECT_TRUE(d.g.users(d.b).empty());
  d.g.remove(d.b);
  EXPECT_FALSE(d.g.contains(d.b));
  EXPECT_EQ(d.g.num_nodes(), 4u);
  validate(d.g);
  EXPECT_THROW(d.g.remove(d.a), GraphError);    // still read by sum
  EXPECT_THROW(d.g.remove(d.sum), GraphError);  // a graph output
  // Descriptors must agree.
  NodeId wide = d.g.add(Concat{1}, {Value{d.a}, Value{d.a}}, "wide");
  EXPECT_THROW(d.g.replace_uses(Value{d.a}, Value{wide}), GraphError);
  validate(d.g);
}

TEST(Graph, ReplaceUsesUpdatesOutputs) {
  Diamond d;
  NodeId t = d.g.add(Tanh{}, {Value{d.sum}}, "t");
  NodeId u = d.g.add(Neg{}, {Value{d.sum}}, "u");
  d.g.replace_uses(Value{d.sum}, Value{d.a});
  EXPECT_EQ(d.g.outputs()[0], Value{d.a});
  EXPECT_EQ(d.g[t].inputs[0], Value{d.a});
  EXPECT_EQ(d.g[u].inputs[0], Value{d.a});
  std::size_t removed = d.g.remove_dead();  // t, u, sum and b no longer reach the output
  EXPECT_EQ(removed, 4u);
  EXPECT_EQ(d.g.num_nodes(), 2u);
  validate(d.g);
}

TEST(Graph, EitherTopologicalOrderPutsProducersFirst) {
  // A graph edited so that ids no longer follow the data flow: a new node feeds an old one.
  Diamond d;
  NodeId late = d.g.add(Tanh{}, {Value{d.x}}, "late");
  d.g.set_input(Use{d.b, 0}, Value{late});
  for (auto const& order : {topological_order(d.g), any_topological_order(d.g)}) {
    ASSERT_EQ(order.size(), d.g.num_nodes());
    std::vector<std::size_t> at(d.g.id_bound());
    for (std::size_t i = 0; i < order.size(); ++i) at[order[i]] = i;
    for (NodeId id : d.g.node_ids())
      for (Value in : d.g[id].inputs) EXPECT_LT(at[in.node], at[id]) << d.g.label(id);
  }
  // The deterministic order takes the smallest ready id first.
  EXPECT_EQ(topological_order(d.g), (std::vector<NodeId>{d.x, d.a, late, d.b, d.sum}));
}

TEST(Graph, CycleIsDetected) {
  Diamond d;
  // Point a's input at sum: x -> b -> sum -> a -> sum is a cycle.
  d.g.set_input(Use{d.a, 0}, Value{d.sum});
  EXPECT_THROW(topological_order(d.g), GraphError);
  EXPECT_THROW(any_topological_order(d.g), GraphError);
  try {
    validate(d.g);
    FAIL();
  } catch (GraphError const& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
}

namespace {
/// g.add(op, inputs, name) throws a ShapeError whose message contains every needle, and
/// leaves the graph as it was.
template <class Op>
void expect_arity_error(Diamond& d, Op op, std::vector<Value> inputs, std::vector<std::string> const& needles) {
  auto before = d.g.num_nodes();
  try {
    d.g.add(op, std::span<Value const>(inputs), "n");
    ADD_FAILURE() << Op::name << " with " << inputs.size() << " inputs was accepted";
  } catch (ShapeError const& e) {
    for (auto const& needle : needles) EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_EQ(d.g.num_nodes(), before);
  validate(d.g);
}
}  // namespace

TEST(Graph, AddChecksEveryOpsArityOnceNamingOpNodeExpectedAndActual) {
  Diamond d;
  Value x{d.x};
  expect_arity_error(d, Conv2D{}, {x}, {"Conv2D 'n' takes 2 to 3 inputs, got 1"});
  expect_arity_error(d, Div{}, {x}, {"Div 'n' takes 2 inputs, got 1"});
  expect_arity_error(d, Relu{}, {x, x}, {"Relu 'n' takes 1 input, got 2"});
  expect_arity_error(d, Concat{1}, {}, {"Concat 'n' takes at least 1 inputs, got 0"});
  expect_arity_error(d, BatchNorm{}, {x, x, x}, {"BatchNorm 'n' takes 5 inputs, got 3"});
  expect_arity_error(d, Input{{Shape{1}}, "y"}, {x}, {"Input 'n' takes 0 inputs, got 1"});
  // The count is checked before the inputs are read: a dangling input of an op given too many
  // inputs reports the count.
  expect_arity_error(d, Sigmoid{}, {x, Value{99}}, {"Sigmoid 'n' takes 1 input, got 2"});
}

TEST(Graph, ReplaceOpChecksTheNewOpsArity) {
  Diamond d;
  try {
    d.g.replace_op(d.sum, Relu{});
    FAIL();
  } catch (ShapeError const& e) {
    EXPECT_NE(std::string(e.what()).find("Relu 'sum' takes 1 input, got 2"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(d.g[d.sum].is<Add>());
}

TEST(Graph, AnyOpInferChecksArityOutsideAGraph) {
  std::vector<TensorDesc> one{TensorDesc{Shape{2, 3}}};
  EXPECT_THROW(AnyOp{MatMul{}}.infer(one), ShapeError);  // MatMul::infer itself would read in[1]
}

TEST(Graph, SetInputChecksDescriptor) {
  Diamond d;
  NodeId wide = d.g.add(Concat{1}, {Value{d.x}, Value{d.x}}, "wide");
  EXPECT_THROW(d.g.set_input(Use{d.a, 0}, Value{wide}), GraphError);
  EXPECT_THROW(d.g.set_input(Use{d.a, 3}, Value{d.x}), GraphError);
  validate(d.g);
}

TEST(Graph, ReplaceOpKeepsOutputs) {
  Diamond d;
  d.g.replace_op(d.a, Tanh{});
  EXPECT_TRUE(d.g[d.a].is<Tanh>());
  EXPECT_THROW(d.g.replace_op(d.a, Transpose{{1, 0}}), GraphError);  // [2,3] -> [3,2]
  EXPECT_TRUE(d.g[d.a].is<Tanh>());
}

TEST(Graph, CopiesShareUntilWritten) {
  Diamond d;
  Graph<> copy = d.g;
  NodeId t = copy.add(Tanh{}, {Value{d.sum}}, "t");
  copy.set_outputs({Value{t}});
  copy.replace_op(d.a, Sigmoid{});
  // The original is untouched by edits to the copy.
  EXPECT_EQ(d.g.num_nodes(), 4u);
  EXPECT_TRUE(d.g[d.a].is<Relu>());
  EXPECT_EQ(d.g.users(d.sum).size(), 0u);
  EXPECT_EQ(copy.users(d.sum).size(), 1u);
  validate(d.g);
  validate(copy);
}

TEST(Graph, ManyNodesAcrossChunks) {
  Graph<> g;
  Value v{g.add(Input{{Shape{4}}, "x"}, {}, "x")};
  for (int i = 0; i < 300; ++i) v = Value{g.add(Relu{}, {v})};
  g.set_outputs({v});
  Graph<> copy = g;
  copy.replace_op(150, Tanh{});
  EXPECT_TRUE(g[150].is<Relu>());
  EXPECT_TRUE(copy[150].is<Tanh>());
  EXPECT_EQ(topological_order(copy).size(), 301u);
  validate(copy);
}

TEST(Graph, RejectsOpsOutsideItsSet) {
  using Small = OpSet<Input, Relu>;
  Graph<Small> g;
  auto x = g.add(Input{{Shape{2}}, "x"}, {});
  EXPECT_THROW(g.add(AnyOp{Tanh{}}, std::vector<Value>{Value{x}}, "t"), GraphError);
}

template <class G, class O>
concept CanAdd = requires(G& g, O op) { g.add(op, std::initializer_list<Value>{}); };
static_assert(CanAdd<Graph<OpSet<Input, Relu>>, Relu> && !CanAdd<Graph<OpSet<Input, Relu>>, Tanh>,
              "a graph accepts exactly the op types of its set at compile time");
