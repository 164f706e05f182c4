// Channels-last between kernels (cpu::Layout): which values lowering keeps NHWC, and that every
// kernel that takes or gives NHWC computes what the all-plain run computes, where layouts meet
// (an NHWC input with a plain output, a binary of an NHWC and a plain operand) included.
#include <gtest/gtest.h>

#include <vector>

#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/sequential.hpp"
#include "matches_reference.hpp"

namespace autograph::cpu {
namespace {

using test::matches;

struct Mixed {
  Graph<> graph;
  Value conv_out, relu_out, reshaped_in, pooled, output;
  Value norm_to_plain, norm_from_plain;  // BatchNorms across layouts: NHWC in and plain out, the reverse
  Value strided_to_plain, strided_from_plain;  // the same for 1x1 poolings of stride 2 (a strided copy)
};

/// Every kernel that takes channels-last, beside readers that do not: a conv whose output a
/// ReLU reads (both NHWC) and a Reshape views (so it stays plain), a pool feeding a batch norm,
/// a binary of an NHWC and a plain operand, an Erf (our own loop: plain only), a sigmoid from a
/// plain input to an NHWC output, a Concat, and batch norms from NHWC to plain (a graph output)
/// and from plain to NHWC (a convolution reads it), and 1x1 poolings of stride 2 likewise.
Mixed mixed_layouts() {
  GraphBuilder<> b;
  Value x = b.input("x", {1, 8, 10, 10});
  Value c1 = b.conv2d(x, 16, {3, 3}, {.pad = Conv2D::same_pad(3, 3)});
  Value r1 = b.relu(c1);
  Value c2 = b.conv2d(r1, 16, {1, 1});
  Value viewed = b.conv2d(r1, 16, {1, 1});
  Value flat = b.reshape(viewed, {1, 1600});  // a view: its input stays plain
  Value pooled = b.max_pool(c2, {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}});
  Value bn = b.batch_norm(pooled);
  Value e = b.add(Erf{}, {c2});  // our own loop: reads and writes plain
  Value sum = b.add(bn, e);      // an NHWC operand and a plain one
  Value avg = b.avg_pool(sum, {2, 2}, {.stride = {2, 2}});
  Value from_plain = b.avg_pool(b.sigmoid(e), {2, 2}, {.stride = {2, 2}});  // the sigmoid: plain in, NHWC out
  Value cat = b.concat({avg, b.max_pool(b.relu(c2), {2, 2}, {.stride = {2, 2}}), from_plain});
  Value out = b.conv2d(cat, 4, {1, 1});
  Value norm_to_plain = b.batch_norm(r1);
  Value norm_from_plain = b.batch_norm(e);
  Value after = b.conv2d(norm_from_plain, 4, {1, 1});
  Value strided_to_plain = b.avg_pool(r1, {1, 1}, {.stride = {2, 2}});
  Value strided_from_plain = b.max_pool(e, {1, 1}, {.stride = {2, 2}});
  Value after_strided = b.conv2d(strided_from_plain, 4, {1, 1});
  Graph<> g = std::move(b).build({out, flat, norm_to_plain, after, strided_to_plain, after_strided});
  fill_random_weights(g, 3);
  return {std::move(g), c1, r1, viewed, pooled, out, norm_to_plain, norm_from_plain, strided_to_plain, strided_from_plain};
}

TEST(ChannelsLast, KeepsNhwcOnlyBetweenKernelsThatTakeIt) {
  Mixed m = mixed_layouts();
  auto cg = lower(m.graph);
  auto layout = [&](Value v) { return cg->layouts[cg->value(v)]; };
  EXPECT_EQ(layout(m.conv_out), Layout::channels_last);  // conv -> relu
  EXPECT_EQ(layout(m.relu_out), Layout::channels_last);  // relu -> two convs
  EXPECT_EQ(layout(m.pooled), Layout::channels_last);    // pool -> batch norm
  EXPECT_EQ(layout(m.reshaped_in), Layout::plain);       // a Reshape views it
  EXPECT_EQ(layout(m.output), Layout::plain);            // graph outputs are plain
  EXPECT_EQ(layout(m.norm_to_plain), Layout::plain);     // a graph output, from an NHWC input
  EXPECT_EQ(layout(m.norm_from_plain), Layout::channels_last);  // from the Erf's plain output to a conv
  EXPECT_EQ(layout(m.strided_to_plain), Layout::plain);
  EXPECT_EQ(layout(m.strided_from_plain), Layout::channels_last);
  EXPECT_EQ(cg->layouts[cg->inputs[0].value], Layout::plain);

  auto off = lower(m.graph, {.channels_last = false});
  for (Layout l : off->layouts) EXPECT_EQ(l, Layout::plain);
}

TEST(ChannelsLast, GivesTheOutputsOfTheAllPlainRunAndTheReference) {
  Mixed m = mixed_layouts();
  std::vector<Tensor> in{Tensor::random({1, 8, 10, 10}, 9)};
  auto schedule = schedule::sequential(KernelDag(m.graph));
  CpuExecutable nhwc(lower(m.graph), schedule), plain(lower(m.graph, {.channels_last = false}), schedule);
  auto want = ReferenceExecutor<>().run(m.graph, in);
  EXPECT_TRUE(matches(nhwc.run(in), want, 1e-5));
  EXPECT_TRUE(matches(plain.run(in), want, 1e-5));
}

}  // namespace
}  // namespace autograph::cpu
