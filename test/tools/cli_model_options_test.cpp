// What `schedule` and `optimize` build a zoo model with: --batch and --resolution reach the
// model builder (as with `autograph models`), and an ONNX file's shapes are --input's alone.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

TEST(CliModelOptions, ScheduleBuildsAtTheGivenResolution) {
  ScratchDir dir;
  auto published = run_tool({"schedule", "--model", "squeezenet1_1"}, dir);
  ASSERT_EQ(published.exit_code, 0) << published.command << "\n" << published.err;
  EXPECT_NE(published.out.find("  input          [1,3,224,224]\n"), std::string::npos) << published.out;

  auto small = run_tool({"schedule", "--model", "squeezenet1_1", "--resolution", "64", "--batch", "2"}, dir);
  ASSERT_EQ(small.exit_code, 0) << small.command << "\n" << small.err;
  EXPECT_NE(small.out.find("  input          [2,3,64,64]\n"), std::string::npos) << small.out;

  // The builder's own limit: below 25 pixels a layer of SqueezeNet has no output.
  auto too_small = run_tool({"schedule", "--model", "squeezenet1_1", "--resolution", "24"}, dir);
  EXPECT_EQ(too_small.exit_code, 1) << too_small.command << "\n" << too_small.out;
  EXPECT_NE(too_small.err.find("resolution must be >= 25, got 24"), std::string::npos) << too_small.err;

  // Models without an image ignore it, as `autograph models` does.
  auto bert = run_tool({"schedule", "--model", "bert", "--resolution", "64"}, dir);
  ASSERT_EQ(bert.exit_code, 0) << bert.command << "\n" << bert.err;
  EXPECT_NE(bert.out.find("  input          [64,1024]\n"), std::string::npos) << bert.out;
}

TEST(CliModelOptions, OptimizeBuildsAtTheGivenResolution) {
  ScratchDir dir;
  auto r = run_tool({"optimize", "--model", "squeezenet1_1", "--resolution", "48", "--configs", "sequential,autograph", "--report", "r.json",
                     "-o", "small.onnx"},
                    dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  auto j = nlohmann::json::parse(read_all(dir.path() / "r.json"));
  EXPECT_NE(j["inputs"].get<std::string>().find("=1x3x48x48"), std::string::npos) << j["inputs"];
  for (auto const& c : j["configurations"]) EXPECT_TRUE(c["verification"]["passed"].get<bool>()) << c["name"];
  EXPECT_NE(r.err.find("its inputs have fixed shapes "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("=1x3x48x48"), std::string::npos) << r.err;

  // An ONNX file's image size is its own (or --input's): --resolution is refused before the search.
  auto onnx = run_tool({"optimize", "small.onnx", "--resolution", "64", "--configs", "sequential"}, dir);
  EXPECT_EQ(onnx.exit_code, 1) << onnx.command << "\n" << onnx.out;
  EXPECT_NE(onnx.err.find("--resolution applies to a built-in model"), std::string::npos) << onnx.err;
  EXPECT_EQ(onnx.err.find("running "), std::string::npos) << onnx.err;

  auto too_small = run_tool({"optimize", "--model", "squeezenet1_1", "--resolution", "24", "--configs", "sequential"}, dir);
  EXPECT_EQ(too_small.exit_code, 1) << too_small.command << "\n" << too_small.out;
  EXPECT_NE(too_small.err.find("resolution must be >= 25, got 24"), std::string::npos) << too_small.err;
}

}  // namespace
