// `autograph fuse`: DPOF against greedy fusion on a small ViT, with the roofline's costs and
// with costs measured on the CPU runtime; an unknown device is refused by name.
#include <gtest/gtest.h>

#include <string>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

TEST(CliFuse, ReportsGroupsChoicesAndLatenciesOnTheSimulatedDevice) {
  ScratchDir dir;
  auto r = run_tool({"fuse", "--model", "vit_b_16", "--resolution", "32", "--runtime", "sim", "--device", "h100"}, dir, 60);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("roofline of H100"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fuse-attention                     12"), std::string::npos) << r.out;  // found in each of the 12 blocks
  EXPECT_NE(r.out.find("DPOF round 1:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("answered from the memo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("latency ms: unfused"), std::string::npos) << r.out;
}

TEST(CliFuse, RunsOnTheOtherTransformersOfTheZoo) {
  ScratchDir dir;
  // {model, fused attention groups found}: BERT's 8 layers, SETR's 12 blocks; DETR-E3's
  // 3 encoder and 12 decoder attentions less one: the first decoder layer's self-attention
  // computes from constants only (DETR's zero target and the query embeddings) and is not
  // among the matches.
  for (auto [model, attention] : {std::pair{"bert_encoder_8x1024", "8"}, {"setr_naive_base", "12"}, {"detr_r50_e3", "14"}}) {
    auto r = run_tool({"fuse", "--model", model, "--resolution", "64", "--batch", "1", "--runtime", "sim"}, dir, 60);
    ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
    auto row = r.out.find("fuse-attention ");
    ASSERT_NE(row, std::string::npos) << r.out;
    auto line = r.out.substr(row, r.out.find('\n', row) - row);
    EXPECT_NE(line.find(std::string(" ") + attention + " "), std::string::npos) << model << ": " << line;
    EXPECT_NE(r.out.find("latency ms: unfused"), std::string::npos) << r.out;
  }
}

TEST(CliFuse, MeasuresGroupsAndGraphsOnTheCpu) {
  ScratchDir dir;
  auto r = run_tool({"fuse", "--model", "vit_b_16", "--resolution", "32", "--group-budget", "5"}, dir, 120);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("measured on this CPU"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("latency ms: unfused"), std::string::npos) << r.out;
}

TEST(CliFuse, AnUnknownDeviceIsRefused) {
  ScratchDir dir;
  auto r = run_tool({"fuse", "--model", "vit_b_16", "--runtime", "sim", "--device", "tpu9"}, dir, 30);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE((r.out + r.err).find("tpu9"), std::string::npos) << r.out << r.err;
}

}  // namespace
