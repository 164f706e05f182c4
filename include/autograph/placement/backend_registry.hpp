#pragma once
// BackendRegistry: the backends a placement chooses among, type-erased so the generator and
// the DP are compiled once per operator set, not per list of backends. Backends<B...> is the
// list as a type (a runtime policy names it: Backends<OneDnn, Blas, OwnKernels>).
#include <functional>
#include <string>
#include <vector>

#include "autograph/placement/backend.hpp"

namespace autograph::placement {

template <class Set>
struct BackendEntry {
  std::string name;
  BackendSpec<Set> spec;
  std::function<rules::Status(Graph<Set> const&, NodeGroup const&)> can_run;
};

template <class Set>
using BackendRegistry = std::vector<BackendEntry<Set>>;

/// One backend's entry: its declaration and its can_run().
template <class Set, class B>
  requires Backend<B, Set>
BackendEntry<Set> backend_entry(B backend = {}) {
  BackendEntry<Set> e{std::string(B::name), {}, {}};
  backend.declare(e.spec);
  e.can_run = [backend](Graph<Set> const& g, NodeGroup const& group) { return rules::to_status(backend.can_run(g, group)); };
  return e;
}

template <class... B>
struct Backends {
  static constexpr std::size_t size = sizeof...(B);
  template <class Set>
  static BackendRegistry<Set> registry() {
    static_assert((Backend<B, Set> && ...), "every type in Backends<...> must model placement::Backend (placement/backend.hpp)");
    return {backend_entry<Set, B>()...};
  }
};

}  // namespace autograph::placement
