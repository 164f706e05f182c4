// The placing runtime never places a group on a backend that cannot run it (can_run), even
// where the cost database says that backend is free for it.
#include <gtest/gtest.h>

#include <filesystem>

#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/placing_runtime.hpp>
#include <autograph/graph/builder.hpp>

#include "placement/test_backends.hpp"
#include "scratch.hpp"

namespace autograph::cpu {
namespace {

constexpr std::int64_t small_limit = 256;  // elements

/// Claims every Relu, and can run only those of at most `small_limit` elements (as a library
/// whose kernel has a size limit would say).
struct SmallRelu {
  static constexpr std::string_view name = "small-relu";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    spec.add(placement::testing::one_relu_rule<Set>());
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const& g, NodeGroup const& group) const {
    for (NodeId n : group.nodes)
      if (g[n].outputs[0].shape.numel() > small_limit) return rules::no_match("more than 256 elements");
    return rules::ok;
  }
  void build(Graph<BuiltinOps> const&, Preparation& p) const {
    std::int64_t n = p.outputs()[0].numel();
    p.run("small relu", [n](Io const& io) -> Runner {
      return [x = io.in[0], y = io.out[0], n] {
        for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
      };
    });
  }
};

TEST(PlacingCpuRuntime, ABackendThatCannotRunAGroupIsNeverChosenForIt) {
  GraphBuilder b;
  auto x = b.input("x", {1, 4, 4, 4});     // 64 elements: small-relu runs it
  auto y = b.input("y", {1, 16, 8, 8});    // 1024 elements: it cannot
  auto g = std::move(b).build({b.relu(x), b.relu(y)});
  auto path = testing::fresh_db("placing_can_run.json");
  using Rt = PlacingCpuRuntime<Backends<backends::OneDnn, SmallRelu>>;
  {
    // Costs recorded (none measured): every Relu free on small-relu, 5 us on oneDNN. The DP
    // would take every Relu to small-relu; can_run leaves it only the small one.
    placement::CostDatabase db(path, cpu_device_name(CpuRuntime(testing::quick())));  // the name PlacingCpuRuntime reads it under
    GraphFacts<BuiltinOps> facts(g);
    for (NodeId n : facts.placed_nodes())
      if (g[n].is<Relu>()) {
        db.insert("small-relu", group_signature(facts, NodeGroup{{n}}), 0.0);
        db.insert("onednn", group_signature(facts, NodeGroup{{n}}), 5.0);
      }
    db.save();
  }
  Rt rt(testing::quick(), {.database = path, .group_budget_ms = 2});
  auto by_node = rt.node_backends(g);
  std::size_t small = 0, large = 0;
  for (NodeId n : g.node_ids())
    if (g[n].is<Relu>()) {
      bool fits = g[n].outputs[0].shape.numel() <= small_limit;
      EXPECT_EQ(by_node[n], fits ? "small-relu" : "onednn") << g.label(n);
      (fits ? small : large) += 1;
    }
  EXPECT_EQ(small, 1u);
  EXPECT_EQ(large, 1u);
  EXPECT_EQ(rt.groups_measured(), 0u);
  EXPECT_GT(rt.measure(g), 0);
}

}  // namespace
}  // namespace autograph::cpu
