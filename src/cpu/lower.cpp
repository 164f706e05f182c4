// Lowering the built-in operators for the CPU runtime, compiled once (autograph/cpu/lower.hpp).
#include "autograph/cpu/lower.hpp"

namespace autograph::cpu {

template std::shared_ptr<CpuGraph const> lower<BuiltinOps>(Graph<BuiltinOps> const&, LowerOptions const&);

}  // namespace autograph::cpu
