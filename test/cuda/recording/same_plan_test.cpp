// Both runtimes execute the same plan (issue 14): the CPU runtime's CpuGraph and the CUDA
// runtime's LoweredGraph of one graph share their PlannedGraph part — the same nodes in the
// same order, the same value ids, views and preds — and, under one schedule, the same memory
// plan for the values kernels write. The CUDA lowering is the real one (cuDNN and cuBLASLt
// replaced by the recording libraries, recording.hpp): in planning-only mode (no device) it
// refuses convolutions and matrix products, which every model here has.
//
// Where the CUDA runtime legitimately differs, the difference must be exactly that:
//   - in-place concatenation (LowerOptions::in_place_concat): a Concat input's buffer placed
//     into the Concat's output (PlannedValue::parent, LoweredGraph::Node::placed);
//   - kernels lowered as views (LowerOptions::views: an Identity, a contiguous Slice, a Resize
//     that changes nothing): the CPU runtime runs them as copies;
//   - alignment: a CUDA buffer promises 16 bytes (it may be placed into a Concat's output at a
//     16-byte boundary), a CPU one the arena's 256;
//   - workspaces and constants' storage, which are the device's (cuDNN's, oneDNN's).
// With the first two switched off the shared parts must be equal.
#include <gtest/gtest.h>

#include <algorithm>

#include "autograph/cpu/lower.hpp"
#include "autograph/cuda/runtime.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/runtime/plan/schedule_check.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "recording.hpp"

namespace autograph {
namespace {

using Kind = PlannedValue::Kind;

cuda::CudaGraphRuntime& gpu() {
  static cuda::CudaGraphRuntime rt;
  return rt;
}

/// Lowers `g` for both runtimes; `cuda_only` switches on the CUDA runtime's own choices.
struct Both {
  std::shared_ptr<cpu::CpuGraph const> cpu;
  std::shared_ptr<cuda::LoweredGraph const> cuda;
};
Both lower_both(Graph<> const& g, bool cuda_only) {
  return {cpu::lower(g, {.random_weights = 1}),
          gpu().lower(g, {.views = cuda_only, .in_place_concat = cuda_only, .random_weights = 1})};
}

/// Every difference between the shared parts of `a` (CPU) and `b` (CUDA), one line each;
/// alignment is left out (see the header comment).
template <class A, class B>
std::vector<std::string> differences(A const& a, B const& b) {
  std::vector<std::string> d;
  auto differ = [&](std::string what) { d.push_back(std::move(what)); };
  if (a.id_bound != b.id_bound) differ("id_bound");
  if (a.node_values != b.node_values) differ("node_values");
  if (a.node_index != b.node_index) differ("node_index");
  if (a.outputs != b.outputs) differ("outputs");
  if (a.constant_slots != b.constant_slots) differ("constant_slots");
  if (a.inputs.size() != b.inputs.size()) differ("inputs");
  for (std::size_t i = 0; i < std::min(a.inputs.size(), b.inputs.size()); ++i)
    if (a.inputs[i].id != b.inputs[i].id || a.inputs[i].value != b.inputs[i].value || a.inputs[i].desc != b.inputs[i].desc) differ("input " + std::to_string(i));
  if (a.nodes.size() != b.nodes.size()) differ("node count " + std::to_string(a.nodes.size()) + " vs " + std::to_string(b.nodes.size()));
  for (std::size_t i = 0; i < std::min(a.nodes.size(), b.nodes.size()); ++i) {
    auto const& x = a.nodes[i];
    auto const& y = b.nodes[i];
    if (x.id != y.id || x.label != y.label || x.kernel != y.kernel || x.inputs != y.inputs || x.outputs != y.outputs || x.preds != y.preds)
      differ("node " + x.label + " / " + y.label);
  }
  if (a.values.size() != b.values.size()) differ("value count");
  for (std::uint32_t v = 0; v < std::min(a.values.size(), b.values.size()); ++v) {
    auto const& x = a.values[v];
    auto const& y = b.values[v];
    if (x.kind != y.kind || x.desc != y.desc || x.producer != y.producer || x.parent != y.parent || x.offset != y.offset || x.slot != y.slot)
      differ("value " + std::to_string(v) + " of node " + std::to_string(x.producer));
  }
  return d;
}

/// The memory plan of the values kernels write under `s`, without workspaces (the device's).
template <class G, class Computes>
MemoryPlan plan_values(G const& g, Schedule const& s, Computes const& computes) {
  HappensBefore hb = happens_before(g, s);
  validate_schedule(g, hb, true);
  return plan_memory(g, hb, computes, [](std::size_t) { return std::span<std::size_t const>{}; }, true);
}

void expect_same_plan(MemoryPlan const& a, MemoryPlan const& b, std::string const& what) {
  ASSERT_EQ(a.requests.size(), b.requests.size()) << what;
  for (std::size_t r = 0; r < a.requests.size(); ++r) {
    EXPECT_EQ(a.requests[r].bytes, b.requests[r].bytes) << what << ", buffer " << r;
    EXPECT_EQ(a.requests[r].accessors, b.requests[r].accessors) << what << ", buffer " << r;
    EXPECT_EQ(a.requests[r].pinned, b.requests[r].pinned) << what << ", buffer " << r;
  }
  EXPECT_EQ(a.request_of, b.request_of) << what;
  EXPECT_EQ(a.arena.offsets, b.arena.offsets) << what;
  EXPECT_EQ(a.arena.size, b.arena.size) << what;
}

Graph<> model(std::string const& name) {
  return models::build(name, {.batch = 1, .resolution = name == "inception_v3" ? 96 : 64, .weight_seed = 3});
}

class SamePlan : public ::testing::TestWithParam<std::string> {};

TEST_P(SamePlan, SameNodesValuesAndPredsOnBothRuntimes) {
  Graph<> g = model(GetParam());
  Both l = lower_both(g, false);
  auto d = differences(*l.cpu, *l.cuda);
  EXPECT_TRUE(d.empty()) << d.size() << " differences, the first: " << d.front();
  EXPECT_GT(std::ranges::count(l.cpu->values, Kind::view, &PlannedValue::kind), 0) << "no views: the claim is weaker than it reads";
}

TEST_P(SamePlan, SameMemoryPlanUnderTheSameSchedule) {
  Graph<> g = model(GetParam());
  Both l = lower_both(g, false);
  KernelDag dag(g);
  auto on_cpu = [&](std::size_t i) { return static_cast<bool>(l.cpu->nodes[i].prepare); };
  auto on_cuda = [&](std::size_t i) { return !l.cuda->nodes[i].launches.empty(); };
  for (auto const& [name, s] : {std::pair{"sequential", schedule::sequential(dag)}, std::pair{"nimble", schedule::nimble(dag)}}) {
    MemoryPlan a = plan_values(*l.cpu, s, on_cpu), b = plan_values(*l.cuda, s, on_cuda);
    expect_same_plan(a, b, GetParam() + " under " + name);
    EXPECT_LT(a.arena.size, a.arena.unshared) << name << ": no buffer reused, the plans agree trivially";
  }
}

/// With the CUDA runtime's own choices on, every difference is a value it placed into a
/// Concat's output or a kernel it lowered as a view, and nothing else.
TEST_P(SamePlan, TheCudaRuntimeDiffersOnlyByInPlaceConcatAndViews) {
  Graph<> g = model(GetParam());
  Both l = lower_both(g, true);
  cpu::CpuGraph const& a = *l.cpu;
  cuda::LoweredGraph const& b = *l.cuda;
  ASSERT_EQ(a.values.size(), b.values.size());
  std::size_t placed = 0, viewed = 0;
  for (std::uint32_t v = 0; v < a.values.size(); ++v) {
    auto const& x = a.values[v];
    auto const& y = b.values[v];
    if (x.kind == y.kind && x.parent == y.parent && x.offset == y.offset) continue;
    auto const* writer = b.node(y.producer);
    ASSERT_TRUE(writer) << "value " << v;
    if (y.kind == Kind::buffer && x.kind == Kind::buffer && x.parent == PlannedValue::npos) {
      // Placed: the reader that is the parent's writer took it in place.
      auto const* concat = b.node(b.values[y.parent].producer);
      ASSERT_TRUE(concat) << writer->label;
      auto at = std::ranges::find(concat->inputs, v) - concat->inputs.begin();
      ASSERT_LT(static_cast<std::size_t>(at), concat->inputs.size()) << writer->label << " is placed into a node that does not read it";
      EXPECT_TRUE(concat->placed[static_cast<std::size_t>(at)]) << writer->label << " in " << concat->label;
      ++placed;
    } else {
      EXPECT_TRUE(x.kind == Kind::buffer && y.kind == Kind::view && writer->kernel && writer->launches.empty())
          << "value " << v << " of " << writer->label << " differs and is neither placed nor a kernel lowered as a view";
      ++viewed;
    }
  }
  std::printf("[ same plan ] %-16s %4zu values, %3zu placed into a Concat on CUDA, %2zu kernels' outputs views on CUDA\n", GetParam().c_str(),
              a.values.size(), placed, viewed);
  auto d = differences(a, b);
  EXPECT_EQ(d.size(), placed + viewed) << "only those values may differ";
}

// Multi-branch models with concatenations (Inception, NASNet, SqueezeNet's fire modules),
// RandWire's random wiring, and BERT's reshapes and splits (views).
INSTANTIATE_TEST_SUITE_P(Zoo, SamePlan, ::testing::Values("inception_v3", "nasnet_a_mobile", "squeezenet1_1", "randwire_ws", "bert"));

}  // namespace
}  // namespace autograph
