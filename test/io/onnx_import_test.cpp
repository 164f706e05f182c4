// The importer's contract on hand-written models: unsupported ops are listed with counts and
// never give a partial graph; dynamic dimensions are fixed by the caller; shape arithmetic is
// folded; weights are read from every storage form; malformed models are errors.
#include <gtest/gtest.h>

#include <fstream>

#include "autograph/graph/stats.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "onnx_testing.hpp"

namespace autograph {
namespace {

using testing::all_close;
using testing::OnnxModel;
using testing::set_int;
using testing::set_ints;

std::string message_of(auto&& f) {
  try {
    f();
  } catch (std::exception const& e) {
    return e.what();
  }
  return "(no error)";
}

std::size_t count_ops(Graph<BuiltinOps> const& g, std::string_view op) {
  std::size_t n = 0;
  for (NodeId id : g.node_ids()) n += g[id].op_name() == op;
  return n;
}

TEST(OnnxImport, UnsupportedOpsAreAllListedWithCountsAndNothingIsImported) {
  OnnxModel m;
  m.input("x", {1, 4}).output("y");
  m.node("Relu", {"x"}, {"a"});
  m.node("LSTM", {"a"}, {"b"});
  m.node("NonMaxSuppression", {"b"}, {"c"});
  m.node("LSTM", {"c"}, {"d"});
  m.node("Relu", {"d"}, {"y"});
  m.node("FusedConv", {"d"}, {"z"}).set_domain("com.microsoft");
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "imported a model with unsupported ops";
  } catch (OnnxUnsupportedError const& e) {
    EXPECT_EQ(e.ops, (std::map<std::string, std::size_t>{{"LSTM", 2}, {"NonMaxSuppression", 1}, {"com.microsoft:FusedConv", 1}}));
    std::string what = e.what();
    EXPECT_NE(what.find("3 unsupported operator types"), std::string::npos) << what;
    EXPECT_NE(what.find("LSTM (2: 'b', 'd')"), std::string::npos) << what;
    EXPECT_NE(what.find("com.microsoft:FusedConv (1: 'z')"), std::string::npos) << what;
  }
}

// Control flow is out of scope: the error names the operator and the node (nested graphs are
// never looked into), and a long list of one type is cut after three names.
TEST(OnnxImport, ControlFlowIsRefusedNamingTheOperatorAndTheNode) {
  OnnxModel m;
  m.input("x", {1, 4}).input("cond", {}, ::onnx::TensorProto::BOOL).output("y", {1, 4});
  auto& branch_if = m.node("If", {"cond"}, {"picked"}, "choose_branch");
  for (char const* name : {"then_branch", "else_branch"}) {
    auto* a = branch_if.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    auto* body = a->mutable_g();
    body->set_name(name);
    auto* n = body->add_node();
    n->set_op_type("Relu");
    n->add_input("x");
    n->add_output("r");
    body->add_output()->set_name("r");
  }
  m.node("Relu", {"picked"}, {"y"});
  for (int i = 0; i < 5; ++i) m.node("Loop", {"", "cond", "x"}, {"l" + std::to_string(i)});
  m.node("Scan", {"x"}, {""}, "");  // no name, no output: named by its position
  try {
    import_onnx_bytes(m.bytes());
    FAIL() << "imported a model with If, Loop and Scan";
  } catch (OnnxUnsupportedError const& e) {
    EXPECT_EQ(e.ops, (std::map<std::string, std::size_t>{{"If", 1}, {"Loop", 5}, {"Scan", 1}}));
    std::string what = e.what();
    EXPECT_NE(what.find("If (1: 'choose_branch')"), std::string::npos) << what;
    EXPECT_NE(what.find("Loop (5: 'l0', 'l1', 'l2', ...)"), std::string::npos) << what;
    EXPECT_NE(what.find("Scan (1: '#7')"), std::string::npos) << what;
  }
}

OnnxModel dynamic_batch_model() {
  OnnxModel m;
  m.input("images", {-1, 3, 4, 4}).output("flat");
  // x.view(x.size(0), -1), as PyTorch exports it: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  m.ints("zero", {0}).ints("minus_one", {-1}).ints("axes0", {0});
  m.node("Shape", {"images"}, {"shape"});
  auto& gather = m.node("Gather", {"shape", "idx"}, {"batch"});
  set_int(gather, "axis", 0);
  auto* idx = m.g().add_initializer();  // a scalar index
  idx->set_name("idx");
  idx->set_data_type(::onnx::TensorProto::INT64);
  idx->add_int64_data(0);
  m.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
  auto& cat = m.node("Concat", {"batch1", "minus_one"}, {"target"});
  set_int(cat, "axis", 0);
  m.node("Relu", {"images"}, {"r"});
  m.node("Reshape", {"r", "target"}, {"flat"});
  return m;
}

TEST(OnnxImport, DynamicDimensionsMustBeFixedAndTheErrorNamesTheInput) {
  OnnxModel m = dynamic_batch_model();
  std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
  EXPECT_NE(what.find("'images'"), std::string::npos) << what;
  EXPECT_NE(what.find("[N,3,4,4]"), std::string::npos) << what;
  EXPECT_THROW(import_onnx_bytes(m.bytes(), {.input_shapes = {{"images", {2, 3, 5, 4}}}}), OnnxImportError);  // static dim differs
  EXPECT_THROW(import_onnx_bytes(m.bytes(), {.input_shapes = {{"images", {2, 3, 4}}}}), OnnxImportError);     // rank differs
  EXPECT_THROW(import_onnx_bytes(m.bytes(), {.input_shapes = {{"image", {2, 3, 4, 4}}}}), OnnxImportError);  // no such input
}

TEST(OnnxImport, ShapeArithmeticIsFoldedOnceShapesAreFixed) {
  OnnxModel m = dynamic_batch_model();
  auto im = import_onnx_bytes(m.bytes(), {.input_shapes = {{"images", {2, 3, 4, 4}}}});
  // Only the input, the Relu and one static Reshape remain; the four shape nodes were folded.
  EXPECT_EQ(im.graph.num_nodes(), 3u);
  EXPECT_EQ(im.folded, 4u);
  ASSERT_EQ(count_ops(im.graph, "Reshape"), 1u);
  EXPECT_EQ(im.graph.desc(im.graph.outputs()[0]).shape, (Shape{2, 48}));
  EXPECT_EQ(im.onnx_ops.at("Gather"), 1u);
  auto in = testing::random_inputs(im.graph, 1);
  auto out = testing::run_reference(im.graph, in);
  ASSERT_EQ(out[0].numel(), 96);
  for (std::size_t i = 0; i < 96; ++i) EXPECT_EQ(out[0].data()[i], std::max(0.f, in.at("images").data()[i]));
}

TEST(OnnxImport, WeightsFromRawAndTypedFields) {
  for (bool raw : {true, false}) {
    OnnxModel m;
    m.input("x", {1, 2}).output("y");
    m.floats("w", {2, 3}, {1, 2, 3, 4, 5, 6}, raw).floats("b", {3}, {0.5f, -1, 2}, raw);
    m.node("MatMul", {"x", "w"}, {"xw"});
    m.node("Add", {"xw", "b"}, {"y"});
    auto im = import_onnx_bytes(m.bytes());
    EXPECT_EQ(graph_stats(im.graph).parameters, 9);
    auto out = testing::run_reference(im.graph, {{"x", Tensor({1, 2}, {1, -1})}});
    EXPECT_TRUE(all_close(out[0], Tensor({1, 3}, {-3 + 0.5f, -3 - 1, -3 + 2}))) << (raw ? "raw_data" : "float_data");
  }
}

TEST(OnnxImport, GemmBecomesMatMulTransposeScaleAdd) {
  OnnxModel m;
  m.input("a", {3, 2}).output("y");
  m.floats("b", {4, 2}, {1, 0, 0, 1, 1, 1, 2, -1}).floats("c", {4}, {1, 2, 3, 4});
  auto& n = m.node("Gemm", {"a", "b", "c"}, {"y"});
  set_int(n, "transA", 1);  // a is [3,2]: op(a) = a^T is [2,3]... so a must be [K,M]
  set_int(n, "transB", 1);
  testing::set_float(n, "alpha", 2.f);
  testing::set_float(n, "beta", 0.5f);
  // transA on [3,2] gives [2,3] x op(b) [2,4]: inner dims 3 vs 2 differ -> an error naming Gemm.
  std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
  EXPECT_NE(what.find("Gemm 'y'"), std::string::npos) << what;
  n.mutable_attribute(0)->set_i(0);  // transA = 0: a [3,2] x b^T [2,4]
  auto im = import_onnx_bytes(m.bytes());
  EXPECT_EQ(count_ops(im.graph, "MatMul"), 1u);
  EXPECT_EQ(count_ops(im.graph, "Transpose"), 0u);  // b is constant: transposed at import
  EXPECT_EQ(count_ops(im.graph, "Scale"), 1u);
  Tensor a({3, 2}, {1, 2, 3, 4, 5, 6});
  auto out = testing::run_reference(im.graph, {{"a", a}});
  // y[i][j] = 2 * sum_k a[i][k] b[j][k] + 0.5 c[j]
  std::vector<float> want;
  float b[4][2] = {{1, 0}, {0, 1}, {1, 1}, {2, -1}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) want.push_back(2 * (a.data()[2 * i] * b[j][0] + a.data()[2 * i + 1] * b[j][1]) + 0.5f * (j + 1));
  EXPECT_TRUE(all_close(out[0], Tensor({3, 4}, want)));
}

TEST(OnnxImport, ValuesNeededAtImportTimeMustBeConstant) {
  OnnxModel m(13);
  m.input("x", {2, 2}).input("lo", {}).output("y");
  m.node("Clip", {"x", "lo"}, {"y"});
  try {
    import_onnx_bytes(m.bytes());
    FAIL();
  } catch (OnnxConstantRequiredError const& e) {
    EXPECT_EQ(e.input, "lo");
  }
  ::onnx::TensorProto lo;
  lo.set_data_type(::onnx::TensorProto::FLOAT);
  lo.add_float_data(0.25f);
  auto im = import_onnx_bytes(m.bytes(), {.constant_inputs = {{"lo", lo}}});
  EXPECT_EQ(im.input_names, (std::vector<std::string>{"x"}));
  auto out = testing::run_reference(im.graph, {{"x", Tensor({2, 2}, {-1, 0.5f, 0.1f, 2})}});
  EXPECT_TRUE(all_close(out[0], Tensor({2, 2}, {0.25f, 0.5f, 0.25f, 2})));
}

TEST(OnnxImport, OutputsTheImporterDoesNotComputeAreErrorsOnlyWhenRead) {
  OnnxModel m;
  m.input("x", {1, 2, 3, 3}).output("y");
  m.node("MaxPool", {"x"}, {"y", "indices"});
  set_ints(*m.g().mutable_node(0), "kernel_shape", {2, 2});
  EXPECT_NO_THROW(import_onnx_bytes(m.bytes()));  // the indices are not read
  m.output("indices", {}, ::onnx::TensorProto::INT64);
  std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
  EXPECT_NE(what.find("indices"), std::string::npos) << what;
}

TEST(OnnxImport, MalformedModelsAreErrors) {
  EXPECT_THROW(import_onnx_bytes("definitely not a model"), OnnxImportError);
  EXPECT_THROW(import_onnx_bytes(""), OnnxImportError);  // no graph
  {
    OnnxModel m;  // a node reads a value nobody made
    m.input("x", {2}).output("y");
    m.node("Add", {"x", "ghost"}, {"y"});
    std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
    EXPECT_NE(what.find("'ghost'"), std::string::npos) << what;
  }
  {
    OnnxModel m;  // nodes out of order
    m.input("x", {2}).output("y");
    m.node("Relu", {"a"}, {"y"});
    m.node("Relu", {"x"}, {"a"});
    EXPECT_THROW(import_onnx_bytes(m.bytes()), OnnxImportError);
  }
  {
    OnnxModel m;  // initializer data of the wrong size
    m.input("x", {2}).output("y");
    m.floats("w", {3}, {1, 2});
    m.node("Add", {"x", "w"}, {"y"});
    std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
    EXPECT_NE(what.find("initializer 'w'"), std::string::npos) << what;
  }
  {
    OnnxModel m;  // an attribute of the wrong type
    m.input("x", {1, 1, 4, 4}).output("y");
    auto& n = m.node("MaxPool", {"x"}, {"y"});
    testing::set_float(n, "kernel_shape", 2.f);
    std::string what = message_of([&] { import_onnx_bytes(m.bytes()); });
    EXPECT_NE(what.find("kernel_shape"), std::string::npos) << what;
  }
  {
    OnnxModel m;  // a huge Reshape target from a constant
    m.input("x", {2}).output("y");
    m.ints("shape", {std::int64_t{1} << 40, std::int64_t{1} << 40});
    m.node("Reshape", {"x", "shape"}, {"y"});
    EXPECT_THROW(import_onnx_bytes(m.bytes()), OnnxImportError);
  }
}

TEST(OnnxImport, ExternalDataIsReadNextToTheModel) {
  testing::ScratchDir scratch("autograph_external");  // removed with its files when the test ends
  auto const& dir = scratch.path();
  std::vector<float> w = {1, 2, 3, 4};
  std::ofstream(dir / "weights.bin", std::ios::binary).write(std::string(8, '\0').data(), 8).write(reinterpret_cast<char const*>(w.data()), 16);
  OnnxModel m;
  m.input("x", {4}).output("y");
  auto* t = m.g().add_initializer();
  t->set_name("w");
  t->set_data_type(::onnx::TensorProto::FLOAT);
  t->add_dims(4);
  t->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto kv = [&](char const* k, std::string const& v) {
    auto* e = t->add_external_data();
    e->set_key(k);
    e->set_value(v);
  };
  kv("location", "weights.bin");
  kv("offset", "8");
  kv("length", "16");
  m.node("Mul", {"x", "w"}, {"y"});
  std::ofstream(dir / "model.onnx", std::ios::binary) << m.bytes();
  auto im = import_onnx(dir / "model.onnx");
  auto out = testing::run_reference(im.graph, {{"x", Tensor({4}, {1, 1, 1, 2})}});
  EXPECT_TRUE(all_close(out[0], Tensor({4}, {1, 2, 3, 8})));
  EXPECT_THROW(import_onnx_bytes(m.bytes()), OnnxUnsupportedError);  // from memory: no folder to read from
  t->mutable_external_data(0)->set_value("../weights.bin");
  std::ofstream(dir / "model.onnx", std::ios::binary | std::ios::trunc) << m.bytes();
  EXPECT_THROW(import_onnx(dir / "model.onnx"), OnnxImportError);  // outside the model's folder
}

TEST(OnnxImport, ClaimedOpsIncludeTheBenchmarkModelsOps) {
  auto ops = supported_onnx_ops();
  for (char const* op : {"Conv", "ConvTranspose", "BatchNormalization", "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf",
                         "Gelu", "Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "MatMul", "Gemm", "Softmax", "LayerNormalization", "Concat",
                         "Split", "Slice", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze", "GlobalAveragePool", "AveragePool",
                         "MaxPool", "Resize", "ReduceMean", "Identity", "Dropout", "Constant", "Shape", "Gather", "Cast", "Range"})
    EXPECT_TRUE(ops.count(op)) << op;
  EXPECT_TRUE(ops.at("Shape"));  // import-time only
  EXPECT_FALSE(ops.at("Conv"));
}

}  // namespace
}  // namespace autograph
