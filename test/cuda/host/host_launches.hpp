#pragma once
// What the host launch tests share (launches_test.cpp, fused_launches_test.cpp): a graph
// lowered for planning, its memory planned for a schedule, and every node's launch functions
// called in an order the schedule allows, with host pointers into the planned arena and the
// CPU versions of the kernel functions (cpu_kernels.cpp); the outputs compared with the
// reference executor's. Compiled once (host_launches.cpp).
#include <gtest/gtest.h>

#include <string>

#include "autograph/cuda/backends/backend_group.hpp"
#include "autograph/graph/graph.hpp"

namespace autograph::cuda::testing {

/// Lowers `g` for planning (views on and off), and runs its launches under the sequential
/// schedule, Nimble's, and random streams, each in several interleavings; expects the
/// reference's outputs within `tolerance` (relative L2), inputs uniform in [lo, hi]. A matrix
/// product's cuBLASLt call runs as the reference MatMul with cuBLASLt's fused epilogue.
void check_launches(Graph<> const& g, std::string const& what, float lo = -1.f, float hi = 1.f, double tolerance = 1e-5);
/// The same for a graph placed on the CUDA runtime's backends (cuda/backends/place.hpp), against
/// the reference executor's outputs of the placed graph (a BackendGroup's are its group's).
void check_launches(Graph<PlacedOps> const& g, std::string const& what, float lo = -1.f, float hi = 1.f, double tolerance = 1e-5);

}  // namespace autograph::cuda::testing
