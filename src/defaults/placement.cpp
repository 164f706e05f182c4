// The placement layer's algorithms for the built-in operator set, compiled once
// (autograph/placement/): every file that placed a model compiled the generator, the DP and the
// cost bookkeeping again.
#include "autograph/placement/candidate_costs.hpp"
#include "autograph/placement/group_graph.hpp"
#include "autograph/placement/op_level_dp.hpp"
#include "autograph/placement/pattern_generator.hpp"

namespace autograph::placement {

template GeneratedCandidates generate_candidates<BuiltinOps>(GraphFacts<BuiltinOps> const&, BackendRegistry<BuiltinOps> const&, GeneratorOptions const&);
template GroupGraph group_graph<BuiltinOps>(Graph<BuiltinOps> const&, NodeGroup const&);
template Placement op_level_dp<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::vector<std::string>,
                                           std::function<double(Candidate const&)> const&, DpOptions const&);
template CandidateCosts candidate_costs<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::span<std::string const>,
                                                    CostDatabase&, std::function<double(Candidate const&)> const&,
                                                    std::function<void(CostProgress const&)> const&);
template CandidateCosts candidate_costs<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::span<std::string const>,
                                                    CostDatabase&, InterleavedSampling const&, std::function<void(CostProgress const&)> const&);

}  // namespace autograph::placement
