#pragma once
// How many intra-op threads a kernel's work is worth. Each kernel of the CPU runtime is an
// OpenMP parallel region: waking the team and joining it costs time of its own, and the join
// waits for the slowest thread, which on a loaded machine is one the scheduler took away for
// a time slice. A small kernel is faster on the thread that launches it.
//
// The rule is Eigen's (unsupported/Eigen/CXX11/src/Tensor/TensorCostModel.h,
// TensorCostModel::numThreads), the one onnxruntime's thread pool sizes its parallel loops
// with: a kernel of `cost` cycles gets (cost - 100000) / 100000 + 0.9 threads, at least 1 (a
// startup cost of 100,000 cycles, and 100,000 more for each further thread). The cycles come
// from the op's own FLOP and byte counts (Operator::flops, ::bytes): FLOPs at this core's FP32
// peak per cycle (the roofline's, host_device_spec), bytes at Eigen's load cost of an L2 line
// (11 cycles per 64 bytes: TensorCostModel's kLoadCycles / kStoreCycles, as onnxruntime sets them).
//
// Measured (2-core AMD EPYC VM, loaded, TASO's BERT split by op type): the attention's 40
// small kernels (transposes of 256 KB, [16, 64, 64] batched products) took a median of 13.5 ms
// per run on two threads and 0.8 ms on one (minimum 0.77 ms either way).
namespace autograph::cpu {

/// Cycles one core needs for a kernel of `flops` FLOPs that moves `bytes` bytes (see above).
double kernel_cycles(double flops, double bytes);

/// Intra-op threads a kernel of `flops` FLOPs moving `bytes` bytes is worth, at most `most`
/// (at least 1). A kernel whose op reports neither (0 and 0: not modelled) gets `most`.
int threads_worth(double flops, double bytes, int most);

}  // namespace autograph::cpu
