// The per-rule report: statistics add up across searches and print as a table.
#include <autograph/search/rule_stats.hpp>
#include <gtest/gtest.h>

using namespace autograph;

TEST(RuleStats, RecorderAddsWhatEachSearchCounted) {
  RuleStatsRecorder rec(2);
  std::vector<RuleStats> a(2), b(2);
  a[0].matches = 3;
  a[0].rewrites = 2;
  a[0].match_seconds = 0.25;
  b[0].matches = 1;
  b[1].rewrites = 5;
  b[1].apply_seconds = 0.5;
  rec.add(a);
  rec.add(b);
  auto s = rec.take();
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].matches, 4u);
  EXPECT_EQ(s[0].rewrites, 2u);
  EXPECT_EQ(s[0].match_seconds, 0.25);
  EXPECT_EQ(s[1].rewrites, 5u);
  EXPECT_EQ(s[1].apply_seconds, 0.5);
}

TEST(RuleStats, ReportHasOneLinePerRuleThatMatched) {
  std::vector<RuleStats> s(3);
  s[0] = {"fuse-conv-relu", 26, 40, 26, 0.0125, 0.5};
  s[1] = {"never-matched", 0, 0, 0, 0.001, 0};
  s[2] = {"fold-conv-batchnorm", 47, 47, 47, 0, 0};
  auto report = format_rule_report(s);
  EXPECT_NE(report.find("rule"), std::string::npos);
  EXPECT_NE(report.find("fuse-conv-relu                       26         40       26     0.0125     0.5000"), std::string::npos) << report;
  EXPECT_NE(report.find("fold-conv-batchnorm"), std::string::npos);
  EXPECT_EQ(report.find("never-matched"), std::string::npos) << report;
  EXPECT_EQ(std::count(report.begin(), report.end(), '\n'), 3);
}
