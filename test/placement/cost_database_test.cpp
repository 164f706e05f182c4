// The cost database: signatures, persistence per device, a second run measuring nothing it
// knows, progress, and the error a failing measurement gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

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
  std::size_t last_done = 0;
  auto progress = [&](CostProgress const& p) {
    ++reports;
    EXPECT_LE(p.done, p.total);
    EXPECT_GE(p.done, last_done);
    last_done = p.done;
  };
  CandidateCosts first;
  {
    CostDatabase db(path, "test-cpu");
    first = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, measure, progress);
  }
  EXPECT_EQ(calls, first.distinct);
  EXPECT_EQ(first.measured, first.distinct);
  EXPECT_LT(first.distinct, cands.size());
  EXPECT_GT(reports, 1u);  // once per signature measured, and once at the end
  EXPECT_LE(reports, calls + 1);
  EXPECT_EQ(last_done, calls);
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

/// A machine that slows down by `drift` of its speed at every sample taken on it, whoever takes it.
struct DriftingMachine {
  double drift = 0.01;
  int samples = 0;
  double sample(double true_us) { return true_us * (1.0 + drift * samples++); }
};

/// The Chain's lone conv is claimed by both backends (per-op: 100 us, fusing: 96 us); every other group by one.
double true_us(Candidate const& c) {
  if (c.group.size() == 1 && c.backend == 1) return 96.0;
  return 100.0 * static_cast<double>(c.group.size());
}

TEST(CandidateCosts, BackendsOfOneSignatureAreTimedInterleavedSoDriftFallsOnBothAlike) {
  Chain chain;
  GraphFacts<BuiltinOps> facts(chain.g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  std::vector<std::string> names{"per-op", "fusing"};
  auto cost_of = [&](CandidateCosts const& costs, std::uint32_t backend) {
    for (std::size_t c = 0; c < cands.size(); ++c)
      if (cands[c].backend == backend && cands[c].group.size() == 1 && cands[c].group.nodes.front() == chain.conv) return costs.us[c];
    ADD_FAILURE() << "no lone-conv candidate of backend " << backend;
    return 0.0;
  };
  InterleavedSampling sampling{.prepare = {}, .rounds = 15, .min_rounds = 15};

  // Each backend timed at its own moment (15 samples, then the next backend's): the drift ranks them.
  DriftingMachine one_after_another;
  auto each = [&](Candidate const& c) {
    std::vector<double> s;
    for (int i = 0; i < sampling.rounds; ++i) s.push_back(one_after_another.sample(true_us(c)));
    return autograph::detail::median_of(s);
  };
  CostDatabase db1(fresh_file("drift-each.json"), "test-cpu");
  auto separate = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db1, each);
  EXPECT_GT(cost_of(separate, 1), cost_of(separate, 0)) << "the drift should have ranked the faster backend last";

  DriftingMachine interleaved;
  sampling.prepare = [&](Candidate const& c) -> std::function<double()> {
    double us = true_us(c);
    return [&interleaved, us] { return interleaved.sample(us); };
  };
  CostDatabase db2(fresh_file("drift-interleaved.json"), "test-cpu");
  auto together = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db2, sampling);
  EXPECT_LT(cost_of(together, 1), cost_of(together, 0));
  EXPECT_NEAR(cost_of(together, 1) / cost_of(together, 0), 0.96, 0.015);
  EXPECT_EQ(together.measured, together.distinct);
}

TEST(CandidateCosts, ASignatureMissingOneBackendIsTimedAgainOnAllOfThem) {
  Chain chain;
  GraphFacts<BuiltinOps> facts(chain.g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  std::vector<std::string> names{"per-op", "fusing"};
  auto path = fresh_file("partial.json");
  std::string conv_signature;
  std::size_t conv_users = 0;
  for (auto const& c : cands)
    if (c.group.size() == 1 && c.group.nodes.front() == chain.conv) conv_signature = group_signature(facts, c.group), ++conv_users;
  ASSERT_EQ(conv_users, 2u);
  std::map<std::string, int> prepared;
  InterleavedSampling sampling{.prepare = [&](Candidate const& c) -> std::function<double()> {
    ++prepared[names[c.backend]];
    return [] { return 7.0; };
  }};
  CostDatabase db(path, "test-cpu");
  db.insert("fusing", conv_signature, 1.0);  // known from an earlier run, per-op's cost is not
  auto r = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, sampling);
  EXPECT_EQ(r.measured, r.distinct);
  EXPECT_EQ(db.find("fusing", conv_signature), 7.0);  // replaced by a cost of the same moment as per-op's
  std::size_t before = prepared["per-op"] + prepared["fusing"];
  auto again = candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, sampling);
  EXPECT_EQ(again.measured, 0u);
  EXPECT_EQ(static_cast<std::size_t>(prepared["per-op"] + prepared["fusing"]), before);
}

TEST(CandidateCosts, AnInterleavedSamplerThatFailsNamesItsBackend) {
  Chain chain;
  GraphFacts<BuiltinOps> facts(chain.g);
  auto cands = generate_candidates(facts, Backends<testing::PerOpBackend, testing::FusingBackend>::registry<BuiltinOps>()).candidates;
  std::vector<std::string> names{"per-op", "fusing"};
  for (bool at_prepare : {true, false}) {
    CostDatabase db(fresh_file(at_prepare ? "fail-prepare.json" : "fail-sample.json"), "test-cpu");
    InterleavedSampling sampling{.prepare = [&](Candidate const& c) -> std::function<double()> {
      bool broken = c.backend == 1 && c.group.size() == 1;
      if (broken && at_prepare) throw ExecutionError("no kernel for a lone conv");
      return [broken] {
        if (broken) throw ExecutionError("the kernel crashed on its first run");
        return 1.0;
      };
    }};
    try {
      candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db, sampling);
      FAIL() << "expected an Error";
    } catch (Error const& e) {
      std::string what = e.what();
      EXPECT_NE(what.find("backend 'fusing' claims the group Conv2D"), std::string::npos) << what;
      EXPECT_NE(what.find(at_prepare ? "no kernel for a lone conv" : "crashed on its first run"), std::string::npos) << what;
    }
  }
  CostDatabase db(fresh_file("bad-rounds.json"), "test-cpu");
  EXPECT_THROW(candidate_costs(facts, std::span<Candidate const>(cands), std::span<std::string const>(names), db,
                               InterleavedSampling{.prepare = [](Candidate const&) { return std::function<double()>([] { return 1.0; }); },
                                                   .rounds = 2,
                                                   .min_rounds = 3}),
               Error);
}

}  // namespace
}  // namespace autograph::placement
