// Choosing a placement by measurement (placement/measured_choice.hpp) on a fake runtime whose
// latencies the tests set: the first contender holds the place, a challenger takes it only when
// faster beyond the noise margin, each challenger meets the current holder, and a contender
// that is the holder's placement is not measured.
#include <gtest/gtest.h>

#include <map>

#include <autograph/placement/measured_choice.hpp>
#include <autograph/placement/placement.hpp>

namespace autograph::placement {
namespace {

/// A fake runtime: each contender's latency in ms, and a 2% noise margin.
struct FakeRuntime {
  std::map<std::string, double> ms;
  int comparisons = 0;
  Comparison compare(std::string const& incumbent, std::string const& challenger) {
    ++comparisons;
    double a = ms.at(incumbent), b = ms.at(challenger);
    return {.incumbent_ms = a, .challenger_ms = b, .margin_ms = 0.02 * a, .faster = b < a - 0.02 * a, .runs = 10};
  }
};

/// The label kept among `labels` (contenders are their own names).
std::pair<std::string, MeasuredChoice> choose(FakeRuntime& rt, std::vector<std::string> const& labels,
                                              std::function<bool(std::string const&, std::string const&)> const& same = {}) {
  std::vector<std::pair<std::string, std::string const*>> contenders;
  for (auto const& l : labels) contenders.emplace_back(l, &l);
  auto choice = choose_measured<std::string>(
      contenders, [&](std::string const& a, std::string const& b) { return rt.compare(a, b); }, same);
  return {contenders[choice.kept].first, choice};
}

TEST(MeasuredChoice, TheBestSingleBackendIsKeptAgainstAPlacementFasterOnlyWithinNoise) {
  FakeRuntime rt{{{"best single", 10.0}, {"op-level placement", 9.9}}};  // 1% faster: inside the margin
  auto [kept, choice] = choose(rt, {"best single", "op-level placement"});
  EXPECT_EQ(kept, "best single");
  ASSERT_EQ(choice.decisions.size(), 1u);
  EXPECT_FALSE(choice.decisions[0].comparison.faster);
  EXPECT_NE(choice.decisions[0].describe().find("best single kept: op-level placement 9.900 ms against 10.000 ms for best single, not faster beyond noise"),
            std::string::npos)
      << choice.decisions[0].describe();
}

TEST(MeasuredChoice, APlacementFasterBeyondNoiseTakesThePlace) {
  FakeRuntime rt{{{"best single", 10.0}, {"op-level placement", 9.0}}};
  auto [kept, choice] = choose(rt, {"best single", "op-level placement"});
  EXPECT_EQ(kept, "op-level placement");
  EXPECT_TRUE(choice.decisions[0].comparison.faster);
  EXPECT_NE(choice.decisions[0].describe().find("op-level placement kept"), std::string::npos) << choice.decisions[0].describe();
}

TEST(MeasuredChoice, ASlowerPlacementNeverTakesThePlace) {
  FakeRuntime rt{{{"best single", 10.0}, {"op-level placement", 12.0}}};
  EXPECT_EQ(choose(rt, {"best single", "op-level placement"}).first, "best single");
}

TEST(MeasuredChoice, EachChallengerMeetsTheHolderNotTheFirst) {
  // b beats a; c beats a beyond noise but not b: b is kept, and c was measured against b.
  FakeRuntime rt{{{"a", 10.0}, {"b", 8.0}, {"c", 7.9}}};
  auto [kept, choice] = choose(rt, {"a", "b", "c"});
  EXPECT_EQ(kept, "b");
  ASSERT_EQ(choice.decisions.size(), 2u);
  EXPECT_EQ(choice.decisions[1].incumbent, "b");
  EXPECT_EQ(choice.decisions[1].challenger, "c");
  EXPECT_FALSE(choice.decisions[1].comparison.faster);
  EXPECT_EQ(rt.comparisons, 2);
}

TEST(MeasuredChoice, ThePlacementOfTheHolderIsNotMeasuredAgain) {
  // The DP's cover is the best single backend's: measuring the two would compare noise.
  FakeRuntime rt{{{"own + onednn", 10.0}, {"op-level placement", 1.0}}};
  auto [kept, choice] = choose(rt, {"own + onednn", "op-level placement"}, [](std::string const&, std::string const&) { return true; });
  EXPECT_EQ(kept, "own + onednn");
  EXPECT_EQ(rt.comparisons, 0);
  ASSERT_EQ(choice.decisions.size(), 1u);
  EXPECT_TRUE(choice.decisions[0].same);
  EXPECT_NE(choice.decisions[0].describe().find("the same placement as own + onednn"), std::string::npos);
}

TEST(MeasuredChoice, AChallengerWithThePlacementOfAContenderThatLostIsNotMeasured) {
  // oneDNN alone held its place against the DP's cover (noise could have said otherwise), and
  // the graph-level search ended at oneDNN alone's placement: it is not measured against the
  // DP's cover (it once "beat" it, x1.109, as itself) and the holder stays.
  FakeRuntime rt{{{"onednn alone", 10.0}, {"op-level placement", 10.1}, {"graph-level search", 7.0}}};
  auto same = [](std::string const& a, std::string const& b) {
    auto placement_of = [](std::string const& l) { return l == "graph-level search" ? std::string("onednn alone") : l; };
    return placement_of(a) == placement_of(b);
  };
  auto [kept, choice] = choose(rt, {"onednn alone", "op-level placement", "graph-level search"}, same);
  EXPECT_EQ(kept, "onednn alone");
  EXPECT_EQ(rt.comparisons, 1);
  ASSERT_EQ(choice.decisions.size(), 2u);
  EXPECT_TRUE(choice.decisions[1].same);
  EXPECT_EQ(choice.decisions[1].same_as, "onednn alone");
  // After a holder change, the placement of the contender it displaced does not take the place back.
  FakeRuntime rt2{{{"onednn alone", 10.0}, {"op-level placement", 8.0}, {"graph-level search", 1.0}}};
  auto [kept2, choice2] = choose(rt2, {"onednn alone", "op-level placement", "graph-level search"}, same);
  EXPECT_EQ(kept2, "op-level placement");
  EXPECT_EQ(rt2.comparisons, 1);
  EXPECT_NE(choice2.decisions[1].describe().find(
                "op-level placement kept: graph-level search is the same placement as onednn alone, which op-level placement holds against"),
            std::string::npos)
      << choice2.decisions[1].describe();
}

TEST(MeasuredChoice, DecidedContendersChallengeNothingButNamePlacements) {
  // oneDNN alone holds; own + oneDNN lost to it elsewhere (decided); the DP's cover is own +
  // oneDNN's placement: not measured (it once measured 1.2x faster than oneDNN alone, as own +
  // oneDNN had measured not faster), and own + oneDNN is not measured again either.
  FakeRuntime rt{{{"onednn alone", 10.0}, {"own + onednn", 8.0}, {"op-level placement", 8.0}}};
  auto same = [](std::string const& a, std::string const& b) {
    auto placement_of = [](std::string const& l) { return l == "op-level placement" ? std::string("own + onednn") : l; };
    return placement_of(a) == placement_of(b);
  };
  std::vector<std::string> labels{"onednn alone", "own + onednn", "op-level placement"};
  std::vector<std::pair<std::string, std::string const*>> contenders;
  for (auto const& l : labels) contenders.emplace_back(l, &l);
  auto choice = choose_measured<std::string>(contenders, [&](std::string const& a, std::string const& b) { return rt.compare(a, b); }, same, 2);
  EXPECT_EQ(choice.kept, 0u);
  EXPECT_EQ(rt.comparisons, 0);
  ASSERT_EQ(choice.decisions.size(), 1u);
  EXPECT_EQ(choice.decisions[0].challenger, "op-level placement");
  EXPECT_EQ(choice.decisions[0].same_as, "own + onednn");
}

TEST(MeasuredChoice, OneContenderIsKeptAndNoneIsAnError) {
  FakeRuntime rt{{{"only", 1.0}}};
  auto [kept, choice] = choose(rt, {"only"});
  EXPECT_EQ(kept, "only");
  EXPECT_TRUE(choice.decisions.empty());
  EXPECT_THROW(choose(rt, {}), Error);
}

TEST(SamePlacement, SameGroupsOnTheSameBackendsInAnyOrder) {
  Placement a;
  a.backends = {"onednn", "own"};
  a.groups = {{NodeGroup{{1, 2}}, 0, "conv-relu", 1.0}, {NodeGroup{{3}}, 1, "chain", 2.0}};
  Placement b;  // other indices, other order, other costs
  b.backends = {"own", "onednn"};
  b.groups = {{NodeGroup{{3}}, 0, "chain", 5.0}, {NodeGroup{{2, 1}}, 1, "conv-relu", 7.0}};
  EXPECT_TRUE(same_placement(a, b));
  Placement c = a;
  c.groups[1].backend = 0;  // node 3 on onednn
  EXPECT_FALSE(same_placement(a, c));
  Placement d = a;
  d.groups[0].group = NodeGroup{{1}};
  d.groups.push_back({NodeGroup{{2}}, 0, "relu", 0});
  EXPECT_FALSE(same_placement(a, d));
}

}  // namespace
}  // namespace autograph::placement
