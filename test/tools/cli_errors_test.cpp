// The `autograph` tool on bad arguments: each is refused with exit status 1 (not a crash, not
// a silent success), a message on stderr that names the problem, before the long work starts,
// and without leaving a file behind. Also what the tool must keep: an ONNX file's input and
// output names through `optimize -o`, and both spellings of each device.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/io/onnx/importer.hpp>

#include <fstream>

#include "run_tool.hpp"

namespace autograph::testing {
namespace {

/// A small ONNX model with names as exporters write them (dots, slashes, colons): input
/// "image.in:0" [1,3,8,8], outputs "softmax_0.tmp_0" and "features/relu:0". Conv + ReLU is a
/// fusion every optimizing configuration makes, so the outputs' producers change.
/// `dynamic_batch` declares the input's first dimension as the symbol "batch".
std::string write_model(ScratchDir const& dir, bool dynamic_batch = false) {
  GraphBuilder b;
  Value x = b.input("image.in:0", {1, 3, 8, 8});
  Value features = b.relu(b.conv2d(x, 4, {3, 3}, {.bias = true}));
  Value probs = b.softmax(b.global_avg_pool(features), 1);  // no Reshape: the batch may change
  Graph<> g = std::move(b).build({probs, features});
  fill_random_weights(g, 3);
  auto model = export_onnx_model(g, {.output_names = {"softmax_0.tmp_0", "features/relu:0"}});
  if (dynamic_batch) model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_param("batch");
  std::string path = dir / "model.onnx";
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path;
}

/// Expects a refusal: exit status 1, every one of `words` on stderr, no search started, and no
/// file in the scratch folder but those listed in `keep`.
void expect_refused(ToolRun const& r, std::vector<std::string> const& words, ScratchDir const& dir, std::vector<std::string> keep = {}) {
  EXPECT_EQ(r.signal, 0) << r.command << "\n" << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.command << "\n" << r.err;
  for (auto const& w : words) EXPECT_NE(r.err.find(w), std::string::npos) << r.command << ": stderr lacks '" << w << "':\n" << r.err;
  EXPECT_EQ(r.err.find("running "), std::string::npos) << r.command << ": refused only after starting the search:\n" << r.err;
  std::sort(keep.begin(), keep.end());
  EXPECT_EQ(dir.entries(), keep) << r.command;
}

TEST(CliErrors, ConfigurationListThatNamesNothing) {
  ScratchDir dir;
  // Before: `--configs ,` with -o read the last result of an empty list (SIGSEGV); without -o
  // it printed an empty table and exited 0.
  for (std::string configs : {",", ",,,"}) {
    expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--configs", configs, "-o", dir / "out.onnx"}, dir),
                   {"--configs", "names no configuration", "known: sequential, nimble"}, dir);
    expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--configs", configs}, dir), {"names no configuration"}, dir);
  }
  // An empty value of any option is refused before any command runs (main.cpp).
  expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--configs", "", "-o", dir / "out.onnx"}, dir), {"--configs", "the value is empty"}, dir);
  expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--configs", "taso,xla"}, dir), {"unknown configuration 'xla'"}, dir);
}

TEST(CliErrors, NumbersOutOfRange) {
  ScratchDir dir;
  for (std::string batch : {"-1", "0"})
    expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--batch", batch}, dir), {"--batch"}, dir);
  for (std::string limit : {"0", "-5", "nan", "inf"})
    expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--time-limit", limit}, dir), {"--time-limit"}, dir);
}

TEST(CliErrors, InputShapesAreParsedAlikeByEveryCommand) {
  ScratchDir dir;
  std::string model = write_model(dir);
  struct Case {
    std::vector<std::string> inputs;
    std::string says;
  };
  std::vector<Case> cases{
      {{"image.in:0=0x3x8x8"}, "dimension 0 is zero"},
      {{"image.in:0=1x3x0x8"}, "dimension 2 is zero"},
      {{"image.in:0=1x99999999999999999999"}, "too large"},
      {{"image.in:0=99999999x99999999x99999999"}, "more than 2^63 elements"},
      {{"image.in:0=1x1x1x1x1x1x1x1x1"}, "more than 8 dimensions"},
      {{"image.in:0=1x-3x8x8"}, "'-3' is not a dimension"},
      {{"image.in:0=1x3xx8"}, "'' is not a dimension"},
      {{"image.in:0="}, "no dimensions"},
      {{"=1x3x8x8"}, "the input name is empty"},
      {{"image.in:0"}, "expected NAME=DIMS"},
      {{"image.in:0=1x3x8x8", "image.in:0=1x3x8x8"}, "given twice"},
  };
  for (auto const& c : cases)
    for (std::string command : {"optimize", "import", "run"}) {
      std::vector<std::string> args{command, model};
      for (auto const& spec : c.inputs) args.insert(args.end(), {"--input", spec});
      expect_refused(run_tool(args, dir), {"--input", c.says}, dir, {"model.onnx"});
    }
}

TEST(CliErrors, EveryDeviceSpellingIsAcceptedByOptimizeAndSchedule) {
  ScratchDir dir;
  for (std::string device : {"2080ti", "rtx2080ti", "H200"}) {
    auto s = run_tool({"schedule", "--model", "squeezenet1_1", "--device", device}, dir);
    EXPECT_EQ(s.exit_code, 0) << s.command << "\n" << s.err;
    auto o = run_tool({"optimize", "--model", "squeezenet1_1", "--configs", "sequential", "--device", device}, dir);
    EXPECT_EQ(o.exit_code, 0) << o.command << "\n" << o.err;
  }
  expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--device", "tpu"}, dir), {"--device tpu", "2080ti"}, dir);
  expect_refused(run_tool({"schedule", "--model", "squeezenet1_1", "--device", "tpu"}, dir), {"--device tpu", "2080ti"}, dir);
}

TEST(CliErrors, AStreamPerCoreNeedsTheCpuRuntime) {
  // The simulated GPU has no cores to put streams on: refused by name, no DOT file written.
  ScratchDir dir;
  expect_refused(run_tool({"schedule", "--model", "squeezenet1_1", "--schedule", "greedy-per-core", "--dot", "s.dot"}, dir),
                 {"greedy-per-core", "--runtime cpu"}, dir);
}

TEST(CliErrors, OutputPathsAreCheckedBeforeTheWork) {
  ScratchDir dir;
  std::string model = write_model(dir);
  std::filesystem::create_directory(dir / "folder");
  std::string missing = dir / "no_such_folder/x", file_as_folder = dir / "model.onnx/x";
  std::vector<std::string> keep{"folder", "model.onnx"};
  std::vector<std::string> optimize{"optimize", "--model", "squeezenet1_1", "--configs", "autograph"};
  for (std::string option : {"--report", "--dot", "-o"}) {
    auto with = [&](std::string const& path) {
      auto args = optimize;
      args.insert(args.end(), {option, path});
      return run_tool(args, dir);
    };
    expect_refused(with(missing), {option, "folder", "does not exist"}, dir, keep);
    expect_refused(with(file_as_folder), {option, "is not a folder"}, dir, keep);
    expect_refused(with(""), {option, "the value is empty"}, dir, keep);
    expect_refused(with(dir / "folder"), {option, "is a folder"}, dir, keep);
  }
  for (std::string option : {"--dot", "--trace"})
    expect_refused(run_tool({"schedule", "--model", "squeezenet1_1", option, missing}, dir), {option, "does not exist"}, dir, keep);
  expect_refused(run_tool({"import", model, "--dot", missing}, dir), {"--dot", "does not exist"}, dir, keep);
  expect_refused(run_tool({"export-model", "squeezenet1_1", "-o", missing}, dir), {"-o", "does not exist"}, dir, keep);
  expect_refused(run_tool({"export-model", "squeezenet1_1", "-o", ""}, dir), {"-o", "the value is empty"}, dir, keep);
}

TEST(CliErrors, FilesAreWrittenWholeWithNothingBeside) {
  ScratchDir dir;
  std::string model = write_model(dir);
  auto r = run_tool({"optimize", model, "--configs", "sequential,autograph", "--report", dir / "r.json", "--dot", dir / "g.dot", "-o",
                     dir / "out.onnx"},
                    dir);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  // No temporary file is left beside the results.
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"g.dot", "model.onnx", "out.onnx", "r.json"}));
  std::string report = read_all(dir / "r.json");
  for (std::string key : {"\"verify_seconds\"", "\"phases\"", "\"total_seconds\""}) EXPECT_NE(report.find(key), std::string::npos) << key;
  EXPECT_NE(r.out.find("time: import"), std::string::npos) << r.out;
}

TEST(CliErrors, EmptyOrFolderTasoRuleFile) {
  ScratchDir dir;
  std::ofstream(dir / "empty.pb").close();
  std::filesystem::create_directory(dir / "rules");
  std::vector<std::string> keep{"empty.pb", "rules"};
  expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--taso", dir / "empty.pb"}, dir), {"empty.pb", "is empty"}, dir, keep);
  expect_refused(run_tool({"optimize", "--model", "squeezenet1_1", "--taso", dir / "rules"}, dir), {"rules", "is a directory"}, dir, keep);
  expect_refused(run_tool({"verify-rules", "--taso", dir / "empty.pb"}, dir), {"empty.pb", "is empty"}, dir, keep);
}

TEST(CliNames, OptimizeKeepsTheOnnxInputAndOutputNames) {
  ScratchDir dir;
  std::string model = write_model(dir);
  auto r = run_tool({"optimize", model, "--configs", "autograph", "-o", dir / "out.onnx"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  auto before = import_onnx(model), after = import_onnx(dir / "out.onnx");
  EXPECT_NE(r.out.find("fuse-conv-relu"), std::string::npos) << "the graph was not rewritten:\n" << r.out;
  EXPECT_EQ(after.input_names, before.input_names);
  EXPECT_EQ(after.output_names, (std::vector<std::string>{"softmax_0.tmp_0", "features/relu:0"}));
}

TEST(CliNames, OptimizeSaysTheExportedShapesAreFixed) {
  ScratchDir dir;
  std::string model = write_model(dir, /*dynamic_batch=*/true);
  auto r = run_tool({"optimize", model, "--input", "image.in:0=2x3x8x8", "--configs", "autograph", "-o", dir / "out.onnx"}, dir);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("dynamic dimensions (image.in:0 [batch,3,8,8]) are not kept"), std::string::npos) << r.err;
  ::onnx::ModelProto out;
  ASSERT_TRUE(out.ParseFromString(read_all(dir / "out.onnx")));
  EXPECT_NE(out.doc_string().find("input shapes are fixed: image.in:0=2x3x8x8"), std::string::npos) << out.doc_string();
  EXPECT_EQ(out.graph().input(0).type().tensor_type().shape().dim(0).dim_value(), 2);
}

}  // namespace
}  // namespace autograph::testing
