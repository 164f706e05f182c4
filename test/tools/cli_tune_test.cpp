// `autograph tune`: the fused attention of a transformer tuned by measurement, its log reused by
// a second run, and a model with nothing to tune refused by name without writing a log.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

std::size_t lines_of(std::filesystem::path const& p) {
  std::ifstream in(p);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}

TEST(CliTune, TunesTheAttentionOfAViTAndReusesItsLog) {
  if (!AUTOGRAPH_CLI_HAS_TUNE) GTEST_SKIP() << "built without XGBoost (libxgboost-dev): no `tune` command";
  ScratchDir dir;
  // ViT-B/16 at 64 px: 17 tokens, the 12 attention blocks are one shape.
  auto first = run_tool({"tune", "--model", "vit_b_16", "--resolution", "64", "--budget", "24", "--log", "t.jsonl", "--repeats", "3"}, dir, 120);
  ASSERT_EQ(first.exit_code, 0) << first.command << "\n" << first.err;
  EXPECT_NE(first.out.find("12 fused attention nodes, 1 distinct shape"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("attention b=12 tq=17 tk=17 d=64 dv=64"), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("best for attention"), std::string::npos) << first.out;
  std::size_t measured = lines_of(dir.path() / "t.jsonl");
  EXPECT_EQ(measured, 24u);  // every trial of the budget, one JSON line each
  auto record = nlohmann::json::parse(read_all(dir.path() / "t.jsonl").substr(0, read_all(dir.path() / "t.jsonl").find('\n')));
  EXPECT_EQ(record["kernel"], "attention");
  EXPECT_GT(record["latency_s"].get<double>(), 0.0);

  // A second run reads the 24 and measures only new configurations.
  auto second = run_tool({"tune", "--model", "vit_b_16", "--resolution", "64", "--budget", "8", "--log", "t.jsonl", "--repeats", "3"}, dir, 120);
  ASSERT_EQ(second.exit_code, 0) << second.command << "\n" << second.err;
  EXPECT_NE(second.out.find("(24 records)"), std::string::npos) << second.out;
  EXPECT_EQ(lines_of(dir.path() / "t.jsonl"), 32u);
}

/// The weight column of `problem`'s row in tune's results table (the token after the signature).
std::string weight_of(std::string const& out, std::string const& problem) {
  std::size_t at = out.find("\n" + problem + " ");
  if (at == std::string::npos) return "(no row for " + problem + ")";
  std::istringstream row(out.substr(at + 1 + problem.size()));
  std::string weight;
  row >> weight;
  return weight;
}

TEST(CliTune, TunesDetrsThreeAttentionShapesWeightedByOccurrence) {
  if (!AUTOGRAPH_CLI_HAS_TUNE) GTEST_SKIP() << "built without XGBoost (libxgboost-dev): no `tune` command";
  ScratchDir dir;
  // DETR-E3 at 64 x 107: a 2 x 4 feature map, so 8 memory tokens; 100 object queries; 8 heads of 32.
  auto r = run_tool({"tune", "--model", "detr_r50_e3", "--resolution", "64", "--budget", "12", "--log", "t.jsonl", "--repeats", "1"}, dir, 120);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("3 distinct shapes"), std::string::npos) << r.out;
  EXPECT_EQ(weight_of(r.out, "attention b=8 tq=8 tk=8 d=32 dv=32 k=[d,tk] mask=none"), "3") << r.out;     // encoder self-attention
  EXPECT_EQ(weight_of(r.out, "attention b=8 tq=100 tk=8 d=32 dv=32 k=[d,tk] mask=none"), "6") << r.out;   // decoder cross-attention
  EXPECT_NE(r.out.find("attention b=8 tq=100 tk=100 d=32 dv=32 k=[d,tk] mask=none"), std::string::npos) << r.out;  // decoder self
  EXPECT_EQ(lines_of(dir.path() / "t.jsonl"), 12u);
}

TEST(CliTune, AModelWithoutAttentionIsRefusedAndWritesNothing) {
  if (!AUTOGRAPH_CLI_HAS_TUNE) GTEST_SKIP() << "built without XGBoost (libxgboost-dev): no `tune` command";
  ScratchDir dir;
  auto r = run_tool({"tune", "--model", "squeezenet1_1", "--log", "t.jsonl"}, dir, 60);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("squeezenet1_1: no attention to tune"), std::string::npos) << r.err;
  EXPECT_TRUE(dir.entries().empty());
  auto bad = run_tool({"tune", "--model", "vit_b_16", "--budget", "0"}, dir, 60);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--budget"), std::string::npos) << bad.err;
}

}  // namespace
