// `optimize --runtime cpu --transformer-fusion [--tuning-log F]`: AutoGraph's configuration fuses
// a ViT by DPOF on measured group costs before its search, the fused result is verified against
// the unfused model (normwise <= 1e-4), the tuning log reaches the fused attention kernels, and
// the options are refused where they cannot apply. ViT-B/16 at 32 px (5 tokens) keeps it fast.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

std::size_t total(nlohmann::json const& applications) {
  std::size_t n = 0;
  for (auto const& [rule, count] : applications.items()) n += count.get<std::size_t>();
  return n;
}

TEST(CliCpuFusion, FusesBeforeTheSearchAndVerifiesAgainstTheUnfusedModel) {
  ScratchDir dir;
  auto r = run_tool({"optimize", "--model", "vit_b_16", "--resolution", "32", "--runtime", "cpu", "--configs", "sequential,autograph",
                     "--time-limit", "2", "--transformer-fusion", "--group-budget", "5", "--report", "r.json", "-o", "fused.onnx"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.out << r.err;
  EXPECT_NE(r.out.find("autograph fused the transformer first (DPOF"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_all(dir.path() / "r.json"));
  auto const& f = j["transformer_fusion"];
  ASSERT_TRUE(f.is_object()) << j.dump(1);
  // At 5 tokens every kernel is dispatch-bound: fusing saves kernels, so DPOF fuses some groups.
  EXPECT_GE(total(f["applications"]), 1u) << f;
  EXPECT_GT(f["groups_measured"].get<std::size_t>(), 0u) << f;
  EXPECT_EQ(f["verification_tolerance"].get<double>(), 1e-4) << f;
  auto const& seq = j["configurations"][0];
  auto const& ag = j["configurations"][1];
  EXPECT_EQ(seq["name"], "sequential");
  EXPECT_TRUE(seq["rewrites"].empty()) << seq;  // the other configurations run the model unfused
  EXPECT_EQ(ag["name"], "autograph");
  for (auto const& [rule, n] : f["applications"].items()) EXPECT_GE(ag["rewrites"][rule].get<std::size_t>(), n.get<std::size_t>()) << ag["rewrites"];
  EXPECT_LT(ag["nodes"].get<std::size_t>(), seq["nodes"].get<std::size_t>()) << ag;
  // Checked on the reference executor against the unfused model, not against the fused graph.
  EXPECT_TRUE(ag["verification"]["ran"].get<bool>()) << ag;
  EXPECT_TRUE(ag["verification"]["passed"].get<bool>()) << ag;
  EXPECT_LE(ag["verification"]["max_rel_error"].get<double>(), 1e-4) << ag;
  EXPECT_TRUE(f["tuning_log"].is_null()) << f;
  // The fused graph is written as ONNX (its fused ops as standard operators: io/onnx/exporter.hpp).
  EXPECT_NE(r.err.find("wrote fused.onnx (autograph)"), std::string::npos) << r.err;
  EXPECT_GT(std::filesystem::file_size(dir.path() / "fused.onnx"), 1000u);
}

TEST(CliCpuFusion, TheTuningLogReachesEveryFusedAttentionDpofKeeps) {
  if (!AUTOGRAPH_CLI_HAS_TUNE) GTEST_SKIP() << "built without XGBoost (libxgboost-dev): no `tune` command to write a log";
  ScratchDir dir;
  auto tune = run_tool({"tune", "--model", "vit_b_16", "--resolution", "32", "--budget", "6", "--log", "t.jsonl", "--repeats", "1"}, dir, 120);
  ASSERT_EQ(tune.exit_code, 0) << tune.command << "\n" << tune.err;
  auto r = run_tool({"optimize", "--model", "vit_b_16", "--resolution", "32", "--runtime", "cpu", "--configs", "autograph", "--time-limit", "1",
                     "--transformer-fusion", "--group-budget", "5", "--tuning-log", "t.jsonl", "--report", "r.json"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.out << r.err;
  auto f = nlohmann::json::parse(read_all(dir.path() / "r.json"))["transformer_fusion"];
  EXPECT_EQ(f["tuning_log"], "t.jsonl") << f;
  // How many attentions DPOF fuses is its measured decision: at ViT's 5 tokens on the 2-core VM
  // it mostly keeps the four unfused ops (measured faster there), sometimes not, so the count
  // is not asserted. Every attention it does fuse is the one shape `tune` measured and must find
  // its tuned configuration. That the runtime then prepares the logged configuration is checked
  // on the kernel itself (CpuFusedAttentionKernel.PreparesTheFastestLoggedConfiguration).
  EXPECT_EQ(f["attention_nodes_tuned"], f["attention_nodes"]) << f;
  std::string line = "tuned kernels: " + std::to_string(f["attention_nodes"].get<std::size_t>()) + " of " +
                     std::to_string(f["attention_nodes"].get<std::size_t>()) + " fused attention nodes run the best configuration of t.jsonl";
  EXPECT_NE(r.out.find(line), std::string::npos) << r.out;
}

TEST(CliCpuFusion, OptionsThatCannotApplyAreRefusedByName) {
  ScratchDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (auto const& c : {Case{{"--runtime", "sim", "--transformer-fusion"}, "--transformer-fusion measures each fusion group on this machine"},
                        Case{{"--runtime", "cpu", "--tuning-log", "t.jsonl"}, "add --transformer-fusion"},
                        Case{{"--runtime", "cpu", "--group-budget", "5"}, "--group-budget times the fusion groups of --transformer-fusion"},
                        Case{{"--runtime", "cpu", "--transformer-fusion", "--tuning-log", "missing.jsonl"}, "--tuning-log missing.jsonl: no such file"},
                        Case{{"--runtime", "cpu", "--transformer-fusion", "--configs", "sequential"}, "--configs must include autograph"},
                        Case{{"--runtime", "cpu", "--transformer-fusion", "--backends", "onednn,own"}, "--transformer-fusion and --backends cannot be combined"}}) {
    std::vector<std::string> args{"optimize", "--model", "vit_b_16", "--resolution", "32"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_tool(args, dir, 60);
    EXPECT_EQ(r.exit_code, 1) << r.command << "\n" << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.command << "\n" << r.err;
  }
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
