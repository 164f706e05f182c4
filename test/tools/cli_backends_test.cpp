// `optimize --runtime cpu --backends`: the names are checked before any work (unknown, repeated,
// none, or without the CPU runtime), and a run reports which backend runs each node of the
// placed configurations, in the table, the JSON report and the DOT picture.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

TEST(CliBackends, BadNamesAreRefusedWithTheKnownOnes) {
  ScratchDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  std::vector<Case> cases{
      {{"--runtime", "cpu", "--backends", "onednn,cudnn"}, "--backends 'onednn,cudnn': unknown backend 'cudnn' (known: onednn, blas, own)"},
      {{"--runtime", "cpu", "--backends", ","}, "--backends ',' names no backend (known: onednn, blas, own)"},
      {{"--runtime", "cpu", "--backends", "own,own"}, "--backends 'own,own': 'own' is named twice"},
      {{"--backends", "onednn"}, "--backends places ops on this machine's CPU backends: it needs --runtime cpu"},
  };
  for (auto const& c : cases) {
    std::vector<std::string> args{"optimize", "--model", "squeezenet1_1"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_tool(args, dir, 60);
    EXPECT_EQ(r.exit_code, 1) << r.command << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.command << "\n" << r.err;
    EXPECT_EQ(r.err.find("running "), std::string::npos) << "no configuration may start: " << r.err;
  }
}

TEST(CliBackends, OptimizeReportsTheBackendOfEachNode) {
  ScratchDir dir;
  auto r = run_tool({"optimize", "--model", "squeezenet1_1", "--resolution", "32", "--runtime", "cpu", "--configs", "sequential", "--backends",
                     "onednn,own", "--db", "costs.json", "--time-limit", "2", "--report", "r.json", "--dot", "g.dot"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("autograph+placement"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placement (onednn,own) on costs.json"), std::string::npos) << r.out;
  auto j = nlohmann::json::parse(read_all(dir.path() / "r.json"));
  auto const& p = j["placement"];
  EXPECT_EQ(p["backends"], nlohmann::json({"onednn", "own"})) << p;
  EXPECT_GT(p["groups_measured"].get<int>(), 0) << p;
  for (auto const* config : {"placement", "autograph+placement"}) {
    auto const& nodes = p["node_backends"][config];
    EXPECT_GT(nodes.size(), 10u) << config;
    for (auto const& [node, backend] : nodes.items()) EXPECT_TRUE(backend == "onednn" || backend == "own") << node << ": " << backend;
  }
  auto names = j["configurations"];
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1]["name"], "placement");
  EXPECT_EQ(names[2]["name"], "autograph+placement");
  auto dot = read_all(dir.path() / "g.dot");
  EXPECT_NE(dot.find("#80b1d3"), std::string::npos);  // oneDNN's colour
  EXPECT_NE(dot.find("oneDNN blue"), std::string::npos);
}

}  // namespace
