#pragma once
// Candidate: a group of nodes one backend can run as one kernel (Collage §4.1), with the backend
// and pattern that proposed it.
#include <cstdint>
#include <string>

#include "autograph/graph/node_group.hpp"

namespace autograph::placement {

/// A group one backend can run, as the pattern generator found it.
struct Candidate {
  NodeGroup group;
  std::uint32_t backend = 0;  // index of the backend in the registry
  std::string pattern;        // the pattern or pattern rule that matched ("conv-eltwise-postops")
};

}  // namespace autograph::placement
