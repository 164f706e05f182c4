// What the tool reports beyond its table: the per-rule report of a search (egg's runner
// report: matches, rewrites, applications, time), on the screen and in the JSON report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;
using Counts = std::map<std::string, std::size_t>;

TEST(CliReports, RuleReportListsTheRulesTheSearchApplied) {
  ScratchDir dir;
  auto r = run_tool({"optimize", "--model", "squeezenet1_1", "--configs", "sequential,autograph", "--no-verify", "--rule-report",
                     "--report", dir / "r.json"},
                    dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("rules of autograph:"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("rules of sequential:"), std::string::npos) << "sequential searches nothing\n" << r.out;
  auto j = nlohmann::json::parse(read_all(dir / "r.json"));
  auto const& autograph = j["configurations"][1];
  ASSERT_EQ(autograph["name"], "autograph");
  // Every rule the kept graph applied appears with as many applications, and matched at least
  // as often as it was applied (each application was a match first).
  Counts applied;
  for (auto const& s : autograph["rules"]) {
    EXPECT_GE(s["matches"].get<std::size_t>(), s["applications"].get<std::size_t>()) << s.dump();
    if (s["applications"].get<std::size_t>() > 0) applied[s["rule"].get<std::string>()] = s["applications"].get<std::size_t>();
    EXPECT_NE(r.out.find(s["rule"].get<std::string>()), std::string::npos) << "printed report lacks " << s["rule"];
  }
  EXPECT_EQ(applied, autograph["rewrites"].get<Counts>());
  EXPECT_FALSE(applied.empty());
  EXPECT_TRUE(j["configurations"][0]["rules"].empty());
}

}  // namespace
