// lower() for graphs placed on the CUDA runtime's backends (cuda/backends/backend_group.hpp's
// PlacedOps: the built-in operators and BackendGroup), compiled once like the built-in set's
// (lower_builtin.cpp).
#include "autograph/cuda/backends/backend_group.hpp"
#include "autograph/cuda/lower.hpp"

namespace autograph::cuda {
template std::shared_ptr<LoweredGraph const> lower<PlacedOps>(Graph<PlacedOps> const&, Device*, LowerOptions const&, ConstantCache*);
}  // namespace autograph::cuda
