#pragma once
// The CUDA runtime plans its arena with the device-neutral planner (runtime/plan/arena.hpp),
// the one the CPU runtime also runs: a plan that is wrong shows up there as wrong outputs.
#include "autograph/runtime/plan/arena.hpp"

namespace autograph::cuda {
using autograph::align_up;
using autograph::ArenaPlan;
using autograph::BufferRequest;
using autograph::check_arena;
using autograph::may_share;
using autograph::plan_arena;
}  // namespace autograph::cuda
