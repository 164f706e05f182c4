// The arena planner (pure host code: runs without a GPU). Buffers share bytes only when the
// schedule orders every access of one before every access of the other, across streams too.
#include <gtest/gtest.h>

#include <random>

#include "autograph/cuda/arena.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::cuda {
namespace {

HappensBefore order_of(Schedule const& s) {
  HappensBefore hb;
  hb.build(s);
  return hb;
}

TEST(Arena, AChainNeedsTwoBuffers) {
  // Kernel i writes buffer i, kernel i + 1 reads it; all on one stream.
  Schedule s{{{}}};
  for (NodeId i = 0; i < 6; ++i) s.streams[0].push_back({i, {}});
  std::vector<BufferRequest> req;
  for (NodeId i = 0; i < 6; ++i) req.push_back({1000, i + 1 < 6 ? std::vector<NodeId>{i, i + 1} : std::vector<NodeId>{i}});
  auto hb = order_of(s);
  ArenaPlan plan = plan_arena(req, hb);
  EXPECT_NO_THROW(check_arena(plan, req, hb));
  EXPECT_EQ(plan.size, 2 * 1024u);  // sizes round up to 256-byte multiples
  EXPECT_EQ(plan.unshared, 6 * 1024u);
}

TEST(Arena, ABufferReadOnAnotherStreamIsNotReusedUnlessTheWriterWaits) {
  // Stream 0 runs A then C; stream 1 runs B, which reads A's output X. C writes Y.
  NodeId A = 0, B = 1, C = 2;
  std::vector<BufferRequest> req{{4096, {A, B}}, {4096, {C}}};
  {
    Schedule s{{{{A, {}}, {C, {}}}, {{B, {A}}}}};
    auto hb = order_of(s);
    EXPECT_FALSE(may_share(req[0], req[1], hb));  // C may run while B still reads X
    ArenaPlan plan = plan_arena(req, hb);
    EXPECT_EQ(plan.size, 2 * 4096u);
    EXPECT_NO_THROW(check_arena(plan, req, hb));
  }
  {
    Schedule s{{{{A, {}}, {C, {B}}}, {{B, {A}}}}};  // now C waits for B
    auto hb = order_of(s);
    EXPECT_TRUE(may_share(req[0], req[1], hb));
    EXPECT_EQ(plan_arena(req, hb).size, 4096u);
  }
  {
    Schedule s{{{{A, {}}}, {{B, {A}}}, {{C, {A}}}}};  // ordered after X's writer, not after its reader
    auto hb = order_of(s);
    EXPECT_FALSE(may_share(req[0], req[1], hb));
  }
}

TEST(Arena, PinnedBuffersAndSharedAccessorsNeverShare) {
  Schedule s{{{{0, {}}, {1, {}}, {2, {}}}}};
  auto hb = order_of(s);
  BufferRequest early{512, {0}}, late{512, {2}};
  EXPECT_TRUE(may_share(early, late, hb));
  late.pinned = true;
  EXPECT_FALSE(may_share(early, late, hb));
  BufferRequest read{512, {0, 1}}, written{512, {1, 2}};  // node 1 reads one and writes the other
  EXPECT_FALSE(may_share(read, written, hb));
}

TEST(Arena, CheckCatchesOverlappingConflicts) {
  Schedule s{{{{0, {}}}, {{1, {}}}}};  // two unordered streams
  auto hb = order_of(s);
  std::vector<BufferRequest> req{{256, {0}}, {256, {1}}};
  ArenaPlan bad{{0, 0}, 256, 512};
  EXPECT_THROW(check_arena(bad, req, hb), Error);
  EXPECT_NO_THROW(check_arena(plan_arena(req, hb), req, hb));
}

/// A random DAG of elementwise ops and convolutions.
KernelDag random_dag(std::uint64_t seed, Graph<>& g) {
  std::mt19937_64 rng(seed);
  GraphBuilder<> b;
  std::vector<Value> values{b.input("x", {1, 4, 8, 8})};
  for (int i = 0; i < 40; ++i) {
    auto pick = [&] { return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)]; };
    int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    values.push_back(kind == 0 ? b.add(pick(), pick()) : kind == 1 ? b.relu(pick()) : b.conv2d(pick(), 4, {3, 3}));
  }
  g = std::move(b).build({values.back()});
  return KernelDag(g);
}

TEST(Arena, RandomGraphsUnderRandomStreamsNeverOverlapConflictingBuffers) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Graph<> g;
    KernelDag dag = random_dag(seed, g);
    std::mt19937_64 rng(seed);
    std::size_t streams = 1 + seed % 5;
    std::vector<std::vector<NodeId>> assignment(streams);
    for (NodeId id : dag.nodes()) assignment[std::uniform_int_distribution<std::size_t>(0, streams - 1)(rng)].push_back(id);
    for (Schedule const& s : {insert_waits(dag, assignment), schedule::nimble(dag)}) {
      auto hb = order_of(s);
      // Each kernel's output, read by its successors; each kernel's workspace.
      std::vector<BufferRequest> req;
      for (std::size_t k = 0; k < dag.size(); ++k) {
        BufferRequest out{std::uniform_int_distribution<std::size_t>(1, 5000)(rng), {dag.node(k)}};
        for (std::uint32_t r : dag.succs(k)) out.accessors.push_back(dag.node(r));
        req.push_back(out);
        req.push_back({std::uniform_int_distribution<std::size_t>(0, 3000)(rng), {dag.node(k)}});
      }
      req.back().pinned = true;  // as a graph output
      ArenaPlan plan = plan_arena(req, hb);
      EXPECT_NO_THROW(check_arena(plan, req, hb)) << "seed " << seed << ", " << s.num_streams() << " streams";
      EXPECT_LE(plan.size, plan.unshared);
      if (s.num_streams() == 1) {
        EXPECT_LT(plan.size, plan.unshared) << "one stream reuses memory";
      }
    }
  }
}

}  // namespace
}  // namespace autograph::cuda
