// The benchmark models of the zoo, exported to ONNX and imported back (the files a user of
// `autograph export-model` gets): valid for onnx.checker and computing the same outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "autograph/models/zoo.hpp"
#include "onnx_testing.hpp"

namespace autograph {
namespace {

using testing::all_close;

/// Zoo models (batch 1, small images) survive export and re-import: the same outputs on the
/// same inputs, and the exported files are valid ONNX.
void expect_zoo_round_trip(std::vector<std::string_view> const& names) {
  testing::ScratchDir scratch("autograph_zoo");  // removed with its files when the test ends
  auto const& dir = scratch.path();
  std::vector<std::filesystem::path> files;
  for (auto name : names) {
    SCOPED_TRACE(std::string(name));
    Graph<> g = models::build(name, {.batch = 1, .resolution = 96, .weight_seed = 3});
    files.push_back(dir / (std::string(name) + ".onnx"));
    export_onnx(g, files.back(), {.graph_name = std::string(name)});
    ImportedOnnxModel back = import_onnx(files.back());
    auto inputs = testing::random_inputs(g, 2);
    auto want = testing::run_reference(g, inputs);
    auto got = testing::run_reference(back.graph, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
      // Random weights make activations large; compare relative to the output's scale.
      double scale = 0;
      for (float v : want[i].data()) scale = std::max(scale, static_cast<double>(std::fabs(v)));
      EXPECT_TRUE(all_close(got[i], want[i], 1e-3, 1e-4 * scale)) << name << " output " << i;
    }
  }
  std::string report = testing::onnx_check(files, dir);
  if (report != "SKIP") {
    EXPECT_EQ(report, "");
  }
}

// The models with few weights; the large ones (tens of millions of weights, hundreds of MB of
// ONNX each) take over a minute together and run as SlowOnnxZoo.
TEST(OnnxZoo, SmallModelsRoundTrip) { expect_zoo_round_trip({"squeezenet1_1", "randwire_ws", "nasnet_a_mobile", "rnntc_sru"}); }

TEST(SlowOnnxZoo, LargeModelsRoundTrip) {
  std::vector<std::string_view> large;
  for (auto const& m : models::zoo())
    if (m.name != "squeezenet1_1" && m.name != "randwire_ws" && m.name != "nasnet_a_mobile" && m.name != "rnntc_sru" && !m.skip_in_sweeps)
      large.push_back(m.name);  // not the models of over 100 M weights (GBs of ONNX), nor DETR's deeper copies
  expect_zoo_round_trip(large);
}

}  // namespace
}  // namespace autograph
