// Which of oneDNN's implementations the zoo's kernels get. oneDNN falls back to a reference
// implementation ("ref:any") for layouts it has no optimized kernel for, silently and up to
// two orders of magnitude slower: our BatchNorm, described as a 3-D tensor, ran that way for
// every zoo model until a rank-correlation run profiled it at 127x a ReLU of its shape.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograph/cpu/executable.hpp"
#include "autograph/cpu/lower.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {
namespace {

/// "node: step" for every step of `g` (sequential schedule) that runs a oneDNN reference kernel.
std::vector<std::string> reference_steps(Graph<> const& g) {
  CpuExecutable exe(lower(g, {.random_weights = 1}), schedule::sequential(KernelDag(g)));
  std::vector<std::string> found;
  for (NodeId id : g.node_ids())
    for (auto const& step : exe.steps(id))
      if (step.find("oneDNN") != std::string::npos && step.find("ref") != std::string::npos) found.push_back(g.label(id) + ": " + step);
  return found;
}

TEST(CpuKernelChoice, NoZooModelRunsAOneDnnReferenceKernel) {
  // The models cover every op family the zoo uses: convolutions of every kind, BatchNorm
  // unfolded, pooling, matmul, layer norm, softmax, the reorders of Concat and Split.
  for (std::string model : {"resnet50", "inception_v3", "nasnet_a_mobile", "squeezenet1_1", "bert", "bert_encoder_8x1024", "vit_b_16", "resnext50_32x4d",
                            "randwire_ws", "rnntc_sru"}) {
    SCOPED_TRACE(model);
    auto steps = reference_steps(models::build(model));
    EXPECT_TRUE(steps.empty()) << steps.size() << " reference kernels, the first: " << steps.front();
  }
}

}  // namespace
}  // namespace autograph::cpu
