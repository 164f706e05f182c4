// Where the CNNs' tensors change layout on the CPU runtime. With BatchNorms folded and ReLUs
// fused (as AutoGraph's search and onnxruntime's graph optimizations leave them), every 4-D
// tensor between Inception-v3's kernels stays channels-last: no kernel converts plain <-> NHWC
// but the first convolution, which reads the network's plain input, and the only other copies
// are the concatenations' (one strided copy per branch). A change that made a pool, a concat
// or a fused convolution produce or want plain data would add a reorder per block here.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/models/inception_v3.hpp"
#include "autograph/rules/apply_greedily.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/rules/library/default.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {
namespace {

using Folding = rules::RuleEngine<BuiltinOps, rules::Rules<rules::FoldConvBatchNorm, rules::FuseConvRelu>>;

/// Steps of every kernel by kind: "reorder (concat)", "layout reorder", or "other".
/// `layout_reorders` (when given) receives each layout reorder's step, to say which they are.
std::map<std::string, int> step_kinds(CpuExecutable const& e, std::string* layout_reorders = nullptr) {
  std::map<std::string, int> kinds;
  for (auto const& n : e.graph().nodes)
    for (auto const& s : e.steps(n.id)) {
      bool reorder = s.find("reorder") != std::string::npos;
      std::string kind = !reorder ? "other" : s.find("(concat)") != std::string::npos ? "reorder (concat)" : "layout reorder";
      ++kinds[kind];
      if (layout_reorders && kind == "layout reorder") *layout_reorders += "\n  " + s;
    }
  return kinds;
}

TEST(CnnLayout, InceptionV3KeepsEveryTensorBetweenKernelsChannelsLast) {
  // 75 px: the smallest side the network takes; the layouts do not depend on it.
  Graph<> g = rules::apply_greedily(models::inception_v3({.resolution = 75, .weight_seed = 1}), Folding{}).graph;
  auto cg = lower(g);
  int plain_between_kernels = 0, nhwc = 0;
  for (std::size_t v = 0; v < cg->values.size(); ++v) {
    auto const& pv = cg->values[v];
    if (pv.kind != PlannedValue::Kind::buffer || pv.desc.shape.rank() != 4 || std::ranges::count(cg->outputs, v)) continue;
    (cg->layouts[v] == Layout::channels_last ? nhwc : plain_between_kernels)++;
  }
  // Every convolution, pool and concatenation writes a 4-D tensor (123 of them at this size).
  int four_d_kernels = 0;
  for (NodeId id : g.node_ids())
    four_d_kernels += g[id].op.is<Conv2D>() || g[id].op.is<Pool2D>() || g[id].op.is<Concat>();
  EXPECT_EQ(plain_between_kernels, 1) << "the last pool's output, which a Reshape views, is the only plain 4-D tensor";
  EXPECT_EQ(nhwc, four_d_kernels - 1);

  // The graph's layouts are under test, not oneDNN's choice per convolution: where a blocked
  // layout times faster (more convolutions on AVX2 than on AVX-512), the convolution reorders
  // into it and back inside its own kernel. Its flat kernels here, as the tensors lie.
  builtin::set_conv_layout(builtin::ConvLayout::plain);
  CpuExecutable e(cg, schedule::sequential(KernelDag(g)));
  builtin::set_conv_layout(builtin::ConvLayout::measured);
  std::string reorders;
  auto kinds = step_kinds(e, &reorders);
  EXPECT_LE(kinds["layout reorder"], 1) << "at most the network's plain input is converted (the first convolution may read it as it lies); "
                                          << "the reorders:" << reorders;
  EXPECT_EQ(kinds["reorder (concat)"], 50) << "one copy per input of the 15 concatenations (Mixed_7b and 7c concatenate inside two branches too)";
}

}  // namespace
}  // namespace autograph::cpu
