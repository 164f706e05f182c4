// Plan assembly: the chunks' best graphs stitched into the whole graph, with an owner map for
// the seam search, and the alternatives that take one chunk's runner-up.
#include <autograph/search/plan_assembly.hpp>
#include <gtest/gtest.h>

#include "chains_testing.hpp"

using namespace autograph;

namespace {
/// Part i of the chains, searched on its own (top 2).
std::vector<ChunkSearch<BuiltinOps>> searched(toy::Chains const& c) {
  std::vector<ChunkSearch<BuiltinOps>> out;
  for (std::size_t i = 0; i < c.part.parts.size(); ++i) {
    std::size_t const parts[] = {i};
    out.push_back(search_chunk(c.graph, c.part, std::span<std::size_t const>(parts), [] { return toy::CollapseRelus{}; }, toy::ops,
                               {.budget = 100, .top_k = 2}));
  }
  return out;
}
std::vector<ChunkSearch<BuiltinOps> const*> pointers(std::vector<ChunkSearch<BuiltinOps>> const& chunks) {
  std::vector<ChunkSearch<BuiltinOps> const*> out;
  for (auto const& c : chunks) out.push_back(&c);
  return out;
}
}  // namespace

TEST(PlanAssembly, StitchesEveryChunksBestAndNamesTheirOwners) {
  auto c = toy::relu_chains({3, 4});
  auto chunks = searched(c);
  auto plan = pointers(chunks);
  std::vector<std::size_t> owner;
  auto whole = assemble_plan(c.graph, std::span<ChunkSearch<BuiltinOps> const* const>(plan), {}, &owner);
  EXPECT_EQ(toy::ops(whole.graph), 2.0) << "each chain collapsed to one relu";
  EXPECT_EQ(whole.trail.size(), 2u + 3u);
  EXPECT_EQ(whole.cost, 0.0) << "assembly does not estimate";
  ASSERT_EQ(owner.size(), whole.graph.id_bound());
  std::vector<std::size_t> relus_of(2, 0);
  for (NodeId id : whole.graph.node_ids()) {
    if (whole.graph[id].is<Input>()) {
      EXPECT_EQ(owner[id], PlanChoice::none);
    } else if (whole.graph[id].is<Relu>()) {
      ++relus_of.at(owner[id]);
    }
  }
  EXPECT_EQ(relus_of, (std::vector<std::size_t>{1, 1}));
}

TEST(PlanAssembly, AlternativesTakeOneChunksRunnerUpEach) {
  auto c = toy::relu_chains({3, 4});
  auto chunks = searched(c);
  auto plan = pointers(chunks);
  std::span<ChunkSearch<BuiltinOps> const* const> span(plan);
  auto alts = plan_alternatives(c.graph, span, toy::ops, 10);
  ASSERT_EQ(alts.size(), 2u) << "one runner-up per chunk";
  EXPECT_EQ(alts[0].cost, 3.0) << "chunk 0's runner-up has two relus";
  EXPECT_EQ(alts[1].cost, 3.0);
  EXPECT_EQ(alts[0].trail.size(), 1u + 3u);
  EXPECT_EQ(plan_alternatives(c.graph, span, toy::ops, 1).size(), 1u) << "the limit holds";
}
