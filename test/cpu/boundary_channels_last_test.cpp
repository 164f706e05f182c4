// LowerOptions::boundary: a graph timed as a part of a model (a placement group) gets its 4-D
// inputs and outputs channels-last where its kernels take and give that layout, and only then.
#include <gtest/gtest.h>

#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {
namespace {

struct Boundary {
  Graph<> graph;
  Value x, conv_out, y, erf_out;
};

/// A convolution (takes and gives channels-last) and an Erf (our own loop: plain only), each
/// reading a graph input and writing a graph output.
Boundary boundary_graph() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 10, 10});
  Value y = b.input("y", {1, 4, 6, 6});
  Value c = b.conv2d(x, 16, {3, 3});
  Value e = b.add(Erf{}, {y});
  Graph<> g = std::move(b).build({c, e});
  fill_random_weights(g, 3);
  return {std::move(g), x, c, y, e};
}

TEST(BoundaryChannelsLast, InputsAndOutputsStayPlainByDefault) {
  Boundary m = boundary_graph();
  auto cg = lower(m.graph);
  for (Value v : {m.x, m.conv_out, m.y, m.erf_out}) EXPECT_EQ(cg->layouts[cg->value(v)], Layout::plain);
}

TEST(BoundaryChannelsLast, FollowsTheKernelsThatReadAndWriteThem) {
  Boundary m = boundary_graph();
  auto cg = lower(m.graph, {.boundary = {.inputs = true, .outputs = true}});
  auto layout = [&](Value v) { return cg->layouts[cg->value(v)]; };
  EXPECT_EQ(layout(m.x), Layout::channels_last);         // the convolution reads it
  EXPECT_EQ(layout(m.conv_out), Layout::channels_last);  // the convolution writes it
  EXPECT_EQ(layout(m.y), Layout::plain);                 // the Erf reads plain only
  EXPECT_EQ(layout(m.erf_out), Layout::plain);           // and writes plain
  // Timing runs on it (the data's order is not run()'s, which is why it is for timing only).
  CpuExecutable exe(cg, schedule::sequential(KernelDag(m.graph)));
  EXPECT_EQ(exe.time(0, 5).size(), 5u);
}

TEST(BoundaryChannelsLast, InputsAndOutputsApart) {
  Boundary m = boundary_graph();
  auto in_only = lower(m.graph, {.boundary = {.inputs = true}});
  EXPECT_EQ(in_only->layouts[in_only->value(m.x)], Layout::channels_last);
  EXPECT_EQ(in_only->layouts[in_only->value(m.conv_out)], Layout::plain);
  auto out_only = lower(m.graph, {.boundary = {.outputs = true}});
  EXPECT_EQ(out_only->layouts[out_only->value(m.x)], Layout::plain);
  EXPECT_EQ(out_only->layouts[out_only->value(m.conv_out)], Layout::channels_last);
  // Without channels-last between kernels, nothing is.
  auto none = lower(m.graph, {.channels_last = false, .boundary = {.inputs = true, .outputs = true}});
  EXPECT_EQ(none->layouts[none->value(m.x)], Layout::plain);
  EXPECT_EQ(none->layouts[none->value(m.conv_out)], Layout::plain);
}

}  // namespace
}  // namespace autograph::cpu
