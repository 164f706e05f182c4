// The flow partition over the built-in operators and the DP over its parts, compiled once (see
// reference_executor.cpp for how these files work, and core/precompiled.hpp for the
// non-template function defined here).
#define AUTOGRAPH_DEFAULTS_INLINE
#define AUTOGRAPH_DEFINE_PARTITION
#include <autograph/search/partition.hpp>
#include <autograph/search/partition_dp.hpp>

template autograph::Partition autograph::partition<autograph::BuiltinOps>(autograph::Graph<autograph::BuiltinOps> const&,
                                                                          std::function<std::size_t(autograph::NodeId)> const&,
                                                                          autograph::PartitionOptions const&);
