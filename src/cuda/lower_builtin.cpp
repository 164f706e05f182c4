// lower() for the default operator set, instantiated once (autograph/cuda/lower.hpp declares
// it extern): the lowering of every op and the host constant folding with the reference
// kernels are the heavy part of including autograph/cuda/runtime.hpp.
#include "autograph/cuda/lower.hpp"

namespace autograph::cuda {
template std::shared_ptr<LoweredGraph const> lower<BuiltinOps>(Graph<BuiltinOps> const&, Device*, LowerOptions const&, ConstantCache*);
}  // namespace autograph::cuda
