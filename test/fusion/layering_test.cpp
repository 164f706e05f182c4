// Layers point one way: fusion (AutoGTCO's DPOF) is not a placement concern. It keys its
// measured costs by the graph layer's GraphFacts and group_signature, so this file, which
// includes every fusion header, sees no placement type. (The fusion layer has no precompiled
// header beyond gtest and std, so what is visible here is what the fusion headers include.)
#include <gtest/gtest.h>

#include <autograph/graph/builder.hpp>

#include <autograph/fusion/dpof.hpp>
#include <autograph/fusion/fuse.hpp>
#include <autograph/fusion/fusion_group.hpp>
#include <autograph/fusion/group_cost.hpp>

namespace autograph::placement {
struct Candidate;  // defined by placement/candidate.hpp
struct Placement;  // defined by placement/placement.hpp
}  // namespace autograph::placement

namespace autograph {
namespace {

template <class T>
concept Complete = requires { sizeof(T); };

static_assert(!Complete<placement::Candidate>, "a fusion header includes placement/candidate.hpp");
static_assert(!Complete<placement::Placement>, "a fusion header includes placement/placement.hpp");
static_assert(Complete<NodeGroup> && Complete<GraphFacts<BuiltinOps>>);

TEST(Layering, FusionKeysGroupsByTheGraphLayersSignature) {
  GraphBuilder b;
  auto x = b.input("x", {2, 3});
  auto r = b.relu(x);
  auto g = std::move(b).build({b.sigmoid(r)});
  GraphFacts<BuiltinOps> facts(g);
  EXPECT_EQ(group_signature(facts, NodeGroup{{r.node}}), "Relu{}(f32[2,3]) -> %0");
}

}  // namespace
}  // namespace autograph
