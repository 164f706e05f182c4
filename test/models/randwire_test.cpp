#include <autograph/graph/structural_hash.hpp>
#include <autograph/models/randwire.hpp>

#include <random>
#include <set>

#include "model_testing.hpp"

namespace autograph::models {
namespace {

using namespace testing;

TEST(WattsStrogatz, RewiringKeepsTheEdgeCountAndMakesNoLoopsOrDuplicates) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    Wiring w = watts_strogatz(32, 4, 0.75, rng);
    EXPECT_EQ(w.edges.size(), 32u * 4 / 2);  // each rewiring moves one edge
    std::set<std::pair<int, int>> seen;
    for (auto [u, v] : w.edges) {
      EXPECT_LT(u, v);  // oriented low -> high: a DAG
      EXPECT_TRUE(seen.insert({u, v}).second);
    }
  }
  // P = 0 keeps the ring lattice: node i joined to i+1 and i+2 (mod N).
  Wiring ring = watts_strogatz(8, 4, 0.0, rng);
  std::set<std::pair<int, int>> want;
  for (int i = 0; i < 8; ++i)
    for (int j = 1; j <= 2; ++j) want.insert({std::min(i, (i + j) % 8), std::max(i, (i + j) % 8)});
  using EdgeSet = std::set<std::pair<int, int>>;
  EXPECT_EQ(EdgeSet(ring.edges.begin(), ring.edges.end()), want);
  EXPECT_THROW(watts_strogatz(8, 3, 0.5, rng), Error);
}

TEST(RandWire, SameSeedSameNetworkOtherSeedOtherWiring) {
  Graph<> a = randwire_ws({.seed = 42}), b = randwire_ws({.seed = 42}), c = randwire_ws({.seed = 43});
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_NE(structural_hash(a), structural_hash(c));
  // Built the same way, node for node: same ids, operators, inputs and names.
  ASSERT_EQ(a.id_bound(), b.id_bound());
  for (NodeId id : a.node_ids()) {
    ASSERT_TRUE(b.contains(id));
    EXPECT_TRUE(a[id].op == b[id].op && a[id].inputs == b[id].inputs && a[id].name == b[id].name) << a.label(id);
  }
  auto wa = randwire_wirings({}, 42), wc = randwire_wirings({}, 43);
  EXPECT_NE(wa[0].edges, wc[0].edges);
  EXPECT_NE(wa[0].edges, wa[1].edges);  // the stages draw different graphs
}

TEST(RandWire, ParametersAndMacsFollowFromTheWiring) {
  RandWireConfig c;
  for (std::uint64_t seed : {0u, 1u, 2u}) {
    Graph<> g = randwire_ws({.seed = seed});
    EXPECT_NO_THROW(validate(g));
    auto wirings = randwire_wirings(c, seed);
    std::int64_t const C = c.channels;
    // Stem: conv1 3 -> C/2 (3x3) + BN, conv2 C/2 -> C (3x3) + BN. Spatial 112, then 56.
    std::int64_t params = 3 * (C / 2) * 9 + 2 * (C / 2) + (C / 2) * C * 9 + 2 * C;
    double macs = 112.0 * 112 * (C / 2) * 3 * 9 + 56.0 * 56 * C * (C / 2) * 9;
    std::int64_t in_ch = C, side = 56;
    for (std::size_t s = 0; s < 3; ++s) {
      std::int64_t ch = C << s;
      side /= 2;
      auto preds = wirings[s].predecessors();
      for (auto const& p : preds) {
        // A node: depthwise 3x3 over its input channels, pointwise to ch, BN (scale, bias).
        std::int64_t cin = p.empty() ? in_ch : ch;
        params += cin * 9 + cin * ch + 2 * ch;
        macs += static_cast<double>(side * side) * static_cast<double>(cin * 9 + cin * ch);
      }
      in_ch = ch;
    }
    // Classifier: 1x1 conv 4C -> 1280 + BN at 7x7, fc 1280 -> 1000 + bias.
    params += 4 * C * 1280 + 2 * 1280 + 1280 * 1000 + 1000;
    macs += 49.0 * 4 * C * 1280 + 1280.0 * 1000;
    EXPECT_EQ(trainable_parameters(g), params) << "seed " << seed;
    EXPECT_DOUBLE_EQ(graph_stats(g).macs, macs) << "seed " << seed;
    // The paper's small regime: 5.6 +- 0.1 M parameters, 583 +- 6.2 M mult-adds (over its seeds).
    EXPECT_LT(relative_error(static_cast<double>(params), 5.6e6), 0.05);
    EXPECT_LT(relative_error(macs, 583e6), 0.05);
  }
}

TEST(RandWire, StageInputsAreStridedAndOutputsAveraged) {
  Graph<> g = randwire_ws({.seed = 7});
  auto wirings = randwire_wirings({}, 7);
  for (std::size_t s = 0; s < 3; ++s) {
    auto preds = wirings[s].predecessors();
    auto succ = wirings[s].has_successor();
    std::size_t sources = std::ranges::count_if(preds, [](auto const& p) { return p.empty(); });
    std::size_t sinks = std::ranges::count(succ, false);
    std::string stage = "conv" + std::to_string(s + 3) + "/";
    std::size_t strided = count_nodes(g, [&](auto const& n) {
      auto const* c = n.template get_if<Conv2D>();
      return c && n.name.starts_with(stage) && c->stride[0] == 2;
    });
    EXPECT_EQ(strided, sources) << stage;
    EXPECT_EQ(count_nodes(g, [&](auto const& n) { return n.name.starts_with(stage + "output_mean"); }), sinks > 1 ? 1u : 0u);
  }
  EXPECT_EQ(output_shape(g), (Shape{1, 1000}));
}

TEST(RandWire, RunsOnTheReferenceExecutor) {
  expect_runs(randwire_ws({.batch = 2, .resolution = 112, .seed = 3, .weight_seed = 6}), Shape{2, 1000});
}

}  // namespace
}  // namespace autograph::models
