// rules::TransformerFusionEngine, compiled once (see reference_executor.cpp for how these files work).
#include <autograph/rules/transformer_fusion_engine.hpp>

namespace autograph::rules {

template class RuleEngine<BuiltinOps, TransformerFusion>;

}  // namespace autograph::rules
