#pragma once
// autograph: optimizing DNN computation graphs for parallel kernel execution.
// One include for the whole CPU-side library. CUDA parts live under autograph/cuda/ and are
// included separately from .cu files.
#include "autograph/core/error.hpp"
#include "autograph/core/tensor.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/structural_hash.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/validate.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/io/dot.hpp"
#include "autograph/ops/builtin.hpp"
#include "autograph/runtime/reference_executor.hpp"
