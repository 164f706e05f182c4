// Which of oneDNN's implementations the zoo's kernels get. oneDNN falls back to a reference
// or generic implementation for layouts it has no optimized kernel for, silently and up to
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

/// oneDNN's implementations that are plain C++ loops over elements: its reference kernels, and
/// the generic BatchNorm and pooling ones it picks when no JIT kernel fits the layout (a
/// channels-last BatchNorm of 78 channels and a plain pooling took 10-30x their memory
/// traffic's time on the Zen 3 VM, 74% of RandWire-WS's kernel time, until they became our own
/// loops). The other ":any" names the zoo gets, "simple_layer_normalization:any" and the
/// concat's "simple:any", are oneDNN's ordinary implementations of those primitives, so the
/// names are listed rather than matched by suffix (their speed is not checked here).
bool generic_kernel(std::string const& step) {
  for (char const* name : {"ref", "nspc_bnorm", "ncsp_bnorm", "simple_nchw", "simple_nhwc"})
    if (step.find(name) != std::string::npos) return true;
  return false;
}

/// "node: step" for every step of `g` (sequential schedule) that runs one of oneDNN's generic kernels.
std::vector<std::string> reference_steps(Graph<> const& g) {
  CpuExecutable exe(lower(g, {.random_weights = 1}), schedule::sequential(KernelDag(g)));
  std::vector<std::string> found;
  for (NodeId id : g.node_ids())
    for (auto const& step : exe.steps(id))
      if (step.find("oneDNN") != std::string::npos && generic_kernel(step)) found.push_back(g.label(id) + ": " + step);
  return found;
}

TEST(CpuKernelChoice, NoZooModelRunsAOneDnnReferenceKernel) {
  // The models cover every op family the zoo uses: convolutions of every kind, BatchNorm
  // unfolded, pooling, matmul, layer norm, softmax, the reorders of Concat and Split.
  for (std::string model : {"resnet50", "inception_v3", "nasnet_a_mobile", "squeezenet1_1", "bert", "bert_encoder_8x1024", "vit_b_16", "resnext50_32x4d",
                            "randwire_ws", "rnntc_sru"}) {
    SCOPED_TRACE(model);
    auto steps = reference_steps(models::build(model));
    EXPECT_TRUE(steps.empty()) << steps.size() << " reference or generic kernels, the first: " << steps.front();
  }
}

}  // namespace
}  // namespace autograph::cpu
