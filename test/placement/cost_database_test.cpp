// The cost database: signatures, persistence per device, a second run measuring nothing it
// knows, progress, and the error a failing measurement gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <autograph/models/zoo.hpp>
#include <autograph/placement/candidate_costs.hpp>
#include <autograph/placement/pattern_generator.hpp>

#include "placement/test_backends.hpp"
#include "testing/scratch_dir.hpp"

namespace autograph::placement {
namespace {

using testing::Chain;

std::filesystem::path fresh_file(std::string const& name) {
  static autograph::testing::ScratchDir const dir("autograph_placement");  // removed when the process exits
  return dir.fresh(name);
}

TEST(GroupSignature, RepeatedBlocksShareSignatures) {
  auto g = models::build("resnet50");
  GraphFacts<BuiltinOps> facts(g);
  auto cands = generate_candidates(facts, Backends<testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  std::set<std::string> sigs;
  for (auto const& cand : cands) sigs.insert(group_signature(facts, cand.group));
  EXPECT_LT(sigs.size(), cands.size() / 2);  // 16 bottlenecks in 4 stages: most blocks repeat
  EXPECT_GT(sigs.size(), 20u);
}

TEST(CostDatabase, PersistsPerDeviceAndKeepsOtherDevices) {
  auto path = fresh_file("devices.json");
  {
    CostDatabase db(path, "cpu-a");
    EXPECT_EQ(db.size(), 0u);
    db.insert("onednn", "Relu{}(f32[8]) -> %0", 1.5);
    db.save();
  }
  {
    CostDatabase db(path, "cpu-b");
    EXPECT_FALSE(db.find("onednn", "Relu{}(f32[8]) -> %0"));
    db.insert("own", "Relu{}(f32[8]) -> %0", 2.5);
    db.save();
  }
  CostDatabase a(path, "cpu-a"), b(path, "cpu-b");
  EXPECT_EQ(a.find("onednn", "Relu{}(f32[8]) -> %0"), 1.5);
  EXPECT_EQ(b.find("own", "Relu{}(f32[8]) -> %0"), 2.5);
  EXPECT_FALSE(a.find("own", "Relu{}(f32[8]) -> %0"));
  EXPECT_THROW(a.insert("own", "x", -1.0), Error);
}

TEST(CostDatabase, RejectsAFileThatIsNotOne) {
  auto path = fresh_file("bad.json");
  std::ofstream(path) << R"({"format": "autograph-placement-costs", "version": 1, "devices": {"cpu": {"own": {"g": "fast"}}}})";
  try {
    CostDatabase db(path, "cpu");
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(path.string()), std::string::npos) << what;
    EXPECT_NE(what.find("group 'g'"), std::string::npos) << what;
  }
  std::ofstream(path) << "{not json";
  EXPECT_THROW(CostDatabase(path, "cpu"), Error);
}

TEST(CandidateCosts, ASecondRunMeasuresNothingItKnows) {
  auto g = models::build("resnet50");
  GraphFacts<BuiltinOps> facts(g);
  auto reg = Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>();
  auto cands = generate_candidates(facts, reg).candidates;
  std::vector<std::string> names{"per-op", "fusing"};
  auto path = fresh_file("resnet50.json");
  std::size_t calls = 0, reports = 0;
  auto measure = [&](Candidate const& c) {
    ++calls;
    return 10.0 * static_cast<double>(c.group.size()) + c.backend;
  };
  auto progress = [&](CostProgress const& p) {
    ++reports;
    EXPECT_LE(p.done, p.total);
  };
  CandidateCosts first;
  {
    CostDatabase db(path, "test-cpu");
    first = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, measure, progress);
  }
  EXPECT_EQ(calls, first.distinct);
  EXPECT_EQ(first.measured, first.distinct);
  EXPECT_LT(first.distinct, cands.size());
  EXPECT_EQ(reports, calls + 1);
  for (std::size_t c = 0; c < cands.size(); ++c) EXPECT_EQ(first.us[c], 10.0 * static_cast<double>(cands[c].group.size()) + cands[c].backend);

  calls = 0;
  CostDatabase again(path, "test-cpu");
  auto second = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), again, measure, progress);
  EXPECT_EQ(calls, 0u);
  EXPECT_EQ(second.measured, 0u);
  EXPECT_EQ(second.us, first.us);
}

TEST(CandidateCosts, AFailedBuildNamesTheBackendAndGroupAndKeepsWhatWasMeasured) {
  Chain c;
  GraphFacts<BuiltinOps> facts(c.g);
  auto cands = generate_candidates(facts, Backends<testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  std::vector<std::string> names{"fusing"};
  auto path = fresh_file("failing.json");
  CostDatabase db(path, "test-cpu");
  auto measure = [](Candidate const& cand) -> double {
    if (cand.group.size() == 3) throw ExecutionError("no kernel for this chain");
    return 1.0;
  };
  try {
    candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, measure);
    FAIL() << "expected an Error";
  } catch (Error const& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("backend 'fusing' claims the group Conv2D"), std::string::npos) << what;
    EXPECT_NE(what.find("pattern 'conv-postops'"), std::string::npos) << what;
    EXPECT_NE(what.find("no kernel for this chain"), std::string::npos) << what;
  }
  EXPECT_GT(CostDatabase(path, "test-cpu").size(), 0u);  // saved before the error left
}

}  // namespace
}  // namespace autograph::placement
