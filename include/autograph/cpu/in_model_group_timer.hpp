#pragma once
// InModelGroupTimer: the CPU runtime timing a fusion group (fusion::MeasuredGroupCost's
// Runtime) as a part of the model: its 4-D inputs and outputs channels-last where its kernels
// take and give that layout, as the model's neighbouring kernels leave them
// (BoundaryChannelsLast, which the placement's groups are timed with too), one stream.
//
// Why: timed all plain, a convolution whose chain reads a residual (Conv2DEpilogue) ran on
// oneDNN's reference kernel (oneDNN 2.6 picked no JIT convolution with a binary post-op on
// plain NCHW at ResNet's shapes): `autograph fuse --model resnet50` timed fuse-conv-add's group
// at 46.8 ms fused against 3.4 ms unfused and DPOF fused none of them, while in the model,
// channels-last, the fused convolution runs oneDNN's JIT kernel.
#include "autograph/cpu/runtime.hpp"
#include "autograph/schedule/kernel_dag.hpp"
#include "autograph/schedule/sequential.hpp"

namespace autograph::cpu {

struct InModelGroupTimer {
  CpuRuntime& rt;
  /// Milliseconds of one run of `g` (the runtime's median), its boundary channels-last where it can be.
  template <class Set>
  double measure(Graph<Set> const& g) {
    return rt.measure(g, schedule::sequential(KernelDag(g)), BoundaryChannelsLast{.inputs = true, .outputs = true});
  }
};

}  // namespace autograph::cpu
