// The measured cost table: JSON in and out, lookups by device and signature, the roofline for
// what the table lacks, and errors that name the file and the entry.
#include <autograph/cost/measured_cost.hpp>
#include <autograph/graph/builder.hpp>
#include <autograph/graph/stats.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>

namespace autograph {
namespace {

static_assert(OpCostModel<MeasuredCost>);

struct Fixture {
  Graph<> g;
  Value conv, relu;
  Fixture() {
    GraphBuilder b;
    auto x = b.input("x", {1, 64, 56, 56});
    conv = b.conv2d(x, 64, {3, 3});
    relu = b.relu(conv);
    g = std::move(b).build({relu});
  }
  std::string signature(Value v) const { return op_signature(g[v.node].op, input_descs(g, v.node)); }
  KernelCost cost(MeasuredCost const& m, Value v) const { return m.estimate(g[v.node].op, input_descs(g, v.node), g[v.node].outputs); }
};

TEST(CostTable, SignaturesNameTheOpItsAttributesAndItsInputs) {
  Fixture f;
  EXPECT_EQ(f.signature(f.conv), "Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])");
  EXPECT_EQ(f.signature(f.relu), "Relu{}(f32[1,64,56,56])");
}

TEST(MeasuredCost, TableEntriesWinAndTheRooflineAnswersTheRest) {
  Fixture f;
  auto table = CostTable::parse(R"json({"format": "autograph-cost-table", "version": 1, "devices": {
      "H100 SXM": {"Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])": {"us": 42.5, "fill": 0.25}},
      "A100 SXM4 80GB": {"Relu{}(f32[1,64,56,56])": 7.0}}})json");
  MeasuredCost m(table, devices::H100::spec);
  auto conv = f.cost(m, f.conv);
  EXPECT_DOUBLE_EQ(conv.us, 42.5);
  EXPECT_DOUBLE_EQ(conv.fill, 0.25);
  EXPECT_DOUBLE_EQ(conv.latency_us, devices::H100::spec.launch_us);
  // The A100 entry does not answer for the H100: the roofline does.
  RooflineCost roof(devices::H100::spec);
  EXPECT_EQ(f.cost(m, f.relu), roof.estimate(f.g[f.relu.node].op, input_descs(f.g, f.relu.node), f.g[f.relu.node].outputs));
  f.cost(m, f.relu);  // memoized: not counted again
  EXPECT_EQ(m.measured_hits(), 1u);
  EXPECT_EQ(m.roofline_fallbacks(), 1u);
  EXPECT_NE(m.describe().find("1 kernels"), std::string::npos) << m.describe();
  MeasuredCost a100(table, devices::A100::spec);
  EXPECT_DOUBLE_EQ(f.cost(a100, f.relu).us, 7.0);
}

TEST(CostTable, RoundTripsThroughJsonAndFiles) {
  CostTable t;
  t.set("H100 SXM", "Relu{}(f32[1,8])", {3.5, {}});
  t.set("H100 SXM", "Sigmoid{}(f32[1,8])", {4.0, 0.5});
  auto back = CostTable::parse(t.dump());
  ASSERT_NE(back.find("H100 SXM", "Sigmoid{}(f32[1,8])"), nullptr);
  EXPECT_DOUBLE_EQ(back.find("H100 SXM", "Relu{}(f32[1,8])")->us, 3.5);
  EXPECT_DOUBLE_EQ(*back.find("H100 SXM", "Sigmoid{}(f32[1,8])")->fill, 0.5);
  EXPECT_EQ(back.find("H100 SXM", "Tanh{}(f32[1,8])"), nullptr);
  auto path = std::filesystem::temp_directory_path() / ("autograph_cost_table_" + std::to_string(::getpid()) + ".json");
  t.save(path);
  EXPECT_EQ(CostTable::load(path).size("H100 SXM"), 2u);
  std::filesystem::remove(path);
}

void expect_error(std::string const& text, std::string const& needle) {
  try {
    CostTable::parse(text, "costs.json");
    FAIL() << "expected an error mentioning " << needle;
  } catch (Error const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("costs.json"), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

TEST(CostTable, ErrorsNameTheFileAndTheEntry) {
  expect_error("{", "not valid JSON");
  expect_error(R"json({"format": "other", "version": 1, "devices": {}})json", "format");
  expect_error(R"json({"format": "autograph-cost-table", "version": 2, "devices": {}})json", "version");
  expect_error(R"json({"format": "autograph-cost-table", "version": 1, "devices": {"H100 SXM": {"Relu{}(f32[1])": "fast"}}})json",
               "Relu{}(f32[1])");
  expect_error(R"json({"format": "autograph-cost-table", "version": 1, "devices": {"H100 SXM": {"Relu{}(f32[1])": -1}}})json", ">= 0");
  expect_error(R"json({"format": "autograph-cost-table", "version": 1, "devices": {"H100 SXM": {"Relu{}(f32[1])": {"us": 1, "fill": 2}}}})json",
               "fill");
  EXPECT_THROW(CostTable::load("/nonexistent/costs.json"), Error);
}

}  // namespace
}  // namespace autograph
