// `autograph place`: the best single backend is chosen by measurement, and each search's result
// (the DP's cover, the graph-level search, AutoGraph + placement) replaces it only on a
// comparison that called it faster beyond noise; the run ends with the zoo table's row.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

/// The lines under `heading` (the choice's comparisons, indented four spaces).
std::vector<std::string> lines_after(std::string const& out, std::string const& heading) {
  std::istringstream in(out);
  std::vector<std::string> r;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(heading)) {
      inside = true;
      r.push_back(line);
    } else if (inside && line.starts_with("    ")) {
      r.push_back(line);
    } else {
      inside = false;
    }
  }
  return r;
}

TEST(CliPlace, ASearchReplacesTheBestSingleBackendOnlyWhenFasterBeyondNoise) {
  ScratchDir dir;
  auto r = run_tool({"place", "--model", "squeezenet1_1", "--resolution", "32", "--db", "costs.json", "--graph-budget", "2", "--search-time", "2",
                     "--group-budget", "2"},
                    dir, 600);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  for (std::string heading : {"  best single backend: kept ", "  op-level result: kept ", "  autograph + placement result: kept "}) {
    auto lines = lines_after(r.out, heading);
    ASSERT_GE(lines.size(), 2u) << heading << "\n" << r.out;
    std::string kept = lines[0].substr(heading.size());
    // The holder is the first contender; whoever took the place did so on a "faster beyond noise" verdict.
    bool replaced = false;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i].find(kept + " kept: " + kept + " ") != std::string::npos) {
        EXPECT_NE(lines[i].find(", faster beyond noise"), std::string::npos) << lines[i];
        replaced = true;
      }
    }
    // Or the holder kept it: it won the first comparison, or the first challenger was its own
    // placement, or another's that it had already beaten (not measured again).
    auto has = [&](std::string const& s) { return lines[1].find(s) != std::string::npos; };
    bool first_holder = has(" kept: ") ? has("for " + kept + ",") || has(", which " + kept + " holds against, not measured again")
                                       : has("the same placement as " + kept);
    EXPECT_TRUE(replaced || first_holder) << heading << kept << "\n" << r.out;
  }
  auto row_at = r.out.find("  zoo row: | squeezenet1_1 | 32 px | ");
  ASSERT_NE(row_at, std::string::npos) << r.out;
  // A search result kept on its choice's ratio also shows its recheck against oneDNN alone.
  std::string row = r.out.substr(row_at, r.out.find('\n', row_at) - row_at);
  std::vector<std::string> cells;
  for (std::size_t at = row.find('|'), next; at != std::string::npos && (next = row.find('|', at + 1)) != std::string::npos; at = next)
    cells.push_back(row.substr(at + 2, next - at - 3));
  ASSERT_EQ(cells.size(), 7u) << row;
  for (std::size_t i = 3; i < 6; ++i) {
    if (!cells[i].starts_with("best single") && cells[i].find("(x") != std::string::npos) {
      EXPECT_NE(cells[i].find("; rechecked x"), std::string::npos) << cells[i];
    }
  }
}

}  // namespace
