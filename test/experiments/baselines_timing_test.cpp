// run_baselines accounts for the time it takes: each configuration's search, verification and
// everything else it spends add up to the wall time around the call. Before, recording a
// result computed the graph's width (a quadratic max antichain) only to count its operators:
// 88 s on a 20,000-op chain that reported a 1.8 s search.
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>
#include <autograph/graph/weights.hpp>
#include <autograph/experiments/baselines.hpp>

#include <chrono>

namespace autograph {
namespace {

TEST(BaselinesTiming, PhasesAddUpToTheWallTimeOnALongChain) {
  // 5,000 elementwise ops in a chain, then a MatMul + ReLU that every search fuses, so that
  // the result is verified on the reference executor (through the whole chain).
  GraphBuilder b;
  Value v = b.input("x", {8, 64});
  for (int i = 0; i < 5000; ++i) v = i % 2 ? b.tanh(v) : b.sigmoid(v);
  v = b.relu(b.matmul(v, b.weight("w", {64, 64})));
  Graph<> g = std::move(b).build({v});
  fill_random_weights(g, 1);

  auto t0 = std::chrono::steady_clock::now();
  auto results = run_baselines<devices::H100, rules::Default>(g, {.configurations = {"metaflow"}});
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ASSERT_EQ(results.size(), 1u);
  auto const& r = results[0];
  EXPECT_EQ(r.operators, 5001u);  // 5,000 + the fused MatMul
  EXPECT_EQ(r.rewrites.count("fuse-matmul-relu"), 1u);
  EXPECT_TRUE(r.verification.ran && r.verification.passed) << r.verification.why;
  EXPECT_GT(r.verify_seconds, 0.0);
  double tolerance = 0.2 * wall + 0.5;
  EXPECT_NEAR(r.search_seconds + r.verify_seconds, wall, tolerance) << "search " << r.search_seconds << " s, verify " << r.verify_seconds << " s";
  EXPECT_NEAR(r.seconds, wall, tolerance);
  EXPECT_LE(r.search_seconds + r.verify_seconds, r.seconds + 1e-6);
  EXPECT_LT(wall, 30.0);
}

TEST(BaselinesTiming, SharedTasoSearchCountsOnce) {
  GraphBuilder b;
  Value v = b.relu(b.matmul(b.input("x", {4, 16}), b.weight("w", {16, 16})));
  Graph<> g = std::move(b).build({v});
  fill_random_weights(g, 1);
  auto t0 = std::chrono::steady_clock::now();
  auto results = run_baselines<devices::H100, rules::Default>(g, {.configurations = {"sequential", "taso", "taso+nimble"}});
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(results.size(), 3u);
  double sum = 0;
  for (auto const& r : results) sum += r.seconds;
  EXPECT_LE(sum, wall + 1e-6);
  EXPECT_NEAR(sum, wall, 0.2 * wall + 0.05);
  EXPECT_EQ(results[2].search_seconds, results[1].search_seconds);  // one search, reported by both
}

TEST(BaselinesTiming, AnEmptyConfigurationListIsAnError) {
  GraphBuilder b;
  Graph<> g = std::move(b).build({b.relu(b.input("x", {4}))});
  try {
    run_baselines<devices::H100, rules::Default>(g, {.configurations = {}});
    FAIL() << "ran no configuration without an error";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find("no configuration to run (known: sequential, nimble"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace autograph
