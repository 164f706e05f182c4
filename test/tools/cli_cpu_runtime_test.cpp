// `--runtime cpu`: schedule and optimize measured on this machine, as a user runs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

TEST(CliCpuRuntime, ScheduleMeasuresOnThisMachine) {
  ScratchDir dir;
  auto r = run_tool({"schedule", "--model", "squeezenet1_1", "--schedule", "nimble", "--runtime", "cpu"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("measured (CPU, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" runs, "), std::string::npos) << r.out;  // the spread of the samples
  // The tool set OpenMP's wait policy for itself: kind() says nothing about spinning.
  EXPECT_EQ(r.out.find("OpenMP threads spin"), std::string::npos) << r.out;
}

TEST(CliCpuRuntime, ScheduleOneStreamPerCore) {
  ScratchDir dir;
  auto r = run_tool({"schedule", "--model", "randwire_ws", "--schedule", "greedy-per-core", "--runtime", "cpu"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("scheduled by greedy-per-core"), std::string::npos) << r.out;
  auto at = r.out.find("  streams ");
  ASSERT_NE(at, std::string::npos) << r.out;
  long streams = std::stol(r.out.substr(r.out.find_first_not_of(' ', at + 10)));
  EXPECT_GE(streams, 1) << r.out;
  EXPECT_LE(streams, static_cast<long>(std::thread::hardware_concurrency())) << r.out;  // RandWire-WS is 15 branches wide
}

TEST(CliCpuRuntime, OptimizeMeasuresEveryConfigurationAndReportsIt) {
  ScratchDir dir;
  auto r = run_tool({"optimize", "--model", "squeezenet1_1", "--runtime", "cpu", "--configs", "sequential,taso,autograph", "--time-limit", "20",
                     "--report", "r.json"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("measured on "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("measuring on the CPU: "), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_all(dir.path() / "r.json"));
  EXPECT_NE(j["runtime"].get<std::string>().find("measured (CPU"), std::string::npos);
  EXPECT_GT(j["measuring_seconds"].get<double>(), 0.0);
  ASSERT_EQ(j["configurations"].size(), 3u);
  for (auto const& c : j["configurations"]) {
    EXPECT_GT(c["latency_ms"].get<double>(), 0.0) << c["name"];
    EXPECT_TRUE(c["verification"]["passed"].get<bool>()) << c["name"];
  }
}

TEST(CliCpuRuntime, RefusesASimulatedDeviceOrTraceWithTheCpu) {
  ScratchDir dir;
  auto a = run_tool({"schedule", "--model", "squeezenet1_1", "--runtime", "cpu", "--device", "h100"}, dir);
  EXPECT_EQ(a.exit_code, 1);
  EXPECT_NE(a.err.find("--runtime cpu measures this machine"), std::string::npos) << a.err;
  auto b = run_tool({"schedule", "--model", "squeezenet1_1", "--runtime", "cpu", "--trace", "t.json"}, dir);
  EXPECT_EQ(b.exit_code, 1);
  EXPECT_NE(b.err.find("--trace"), std::string::npos) << b.err;
  auto c = run_tool({"optimize", "--model", "squeezenet1_1", "--runtime", "gpu"}, dir);
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.err.find("known runtimes are 'sim'"), std::string::npos) << c.err;
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
