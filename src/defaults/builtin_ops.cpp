// The built-in operators' type-erased tables and the graph builder over them, compiled once
// (see reference_executor.cpp for how these files work).
#include <autograph/graph/builder.hpp>
#include <autograph/ops/builtin.hpp>

namespace autograph {
#define AUTOGRAPH_INSTANTIATE_HOLDER(Op) template struct AnyOp::Holder<Op>;
AUTOGRAPH_FOR_EACH_BUILTIN_OP(AUTOGRAPH_INSTANTIATE_HOLDER)
#undef AUTOGRAPH_INSTANTIATE_HOLDER

template class GraphBuilder<BuiltinOps>;
}  // namespace autograph
