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
