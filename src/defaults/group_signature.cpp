// A node group's signature for the built-in operator set, compiled once
// (autograph/graph/group_signature.hpp): the placement's cost database and the fusion layer's
// measured group costs both key by it.
#include "autograph/graph/group_signature.hpp"

namespace autograph {

template std::string group_signature<BuiltinOps>(GraphFacts<BuiltinOps> const&, NodeGroup const&);

}  // namespace autograph
