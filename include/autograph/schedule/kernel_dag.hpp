#pragma once
// KernelDag: the graph as the device sees it — only the nodes that launch a kernel, with an
// edge p -> v when v reads a value p produced, directly or through views (Reshape). Weights,
// inputs and constant-folded nodes are gone. Kernels are numbered 0..size()-1 in a
// topological order; reaches() is the transitive closure, one bit row per kernel.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "autograph/core/precompiled.hpp"
#include "autograph/cost/inference_kernels.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/matching.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

class KernelDag {
 public:
  static constexpr std::uint32_t npos = std::numeric_limits<std::uint32_t>::max();

  KernelDag() = default;
  template <class Set>
  explicit KernelDag(Graph<Set> const& g) : KernelDag(g, kernel_mask(g)) {}
  /// `kernel[id]` says which nodes launch a kernel (see kernel_mask()).
  template <class Set>
  KernelDag(Graph<Set> const& g, std::vector<char> const& kernel);

  std::size_t size() const { return nodes_.size(); }
  /// The graph node of kernel k.
  NodeId node(std::size_t k) const { return nodes_[k]; }
  std::span<NodeId const> nodes() const { return nodes_; }
  /// The kernel index of node `id`, or npos when it launches no kernel.
  std::uint32_t index(NodeId id) const { return id < index_.size() ? index_[id] : npos; }
  bool is_kernel(NodeId id) const { return index(id) != npos; }
  std::span<std::uint32_t const> preds(std::size_t k) const { return preds_[k]; }
  std::span<std::uint32_t const> succs(std::size_t k) const { return succs_[k]; }
  std::size_t num_edges() const {
    std::size_t e = 0;
    for (auto const& p : preds_) e += p.size();
    return e;
  }
  /// True when a path of at least one edge leads from kernel a to kernel b.
  bool reaches(std::size_t a, std::size_t b) const { return (closure_[a * words_ + b / 64] >> (b % 64)) & 1u; }
  bool independent(std::size_t a, std::size_t b) const { return a != b && !reaches(a, b) && !reaches(b, a); }
  /// Bit row of the kernels reachable from a.
  std::span<std::uint64_t const> descendants(std::size_t a) const { return {closure_.data() + a * words_, words_}; }
  std::size_t words() const { return words_; }

  /// The largest set of pairwise independent kernels (Dilworth: kernels − maximum matching
  /// over the reachability relation).
  std::size_t width() const;

 private:
  std::vector<NodeId> nodes_;
  std::vector<std::uint32_t> index_;
  std::vector<std::vector<std::uint32_t>> preds_, succs_;
  std::vector<std::uint64_t> closure_;
  std::size_t words_ = 0;
};

// Defined out of the class: the `extern template` below then keeps the programs that link
// autograph::defaults from compiling it again in every file (see core/precompiled.hpp).
template <class Set>
KernelDag::KernelDag(Graph<Set> const& g, std::vector<char> const& kernel) : index_(g.id_bound(), npos) {
  auto order = topological_order(g);
  for (NodeId id : order)
    if (kernel[id]) {
      index_[id] = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back(id);
    }
  // sources[id]: the kernels whose outputs reach node id without passing through a kernel.
  std::vector<std::vector<std::uint32_t>> sources(g.id_bound());
  preds_.resize(nodes_.size());
  succs_.resize(nodes_.size());
  for (NodeId id : order) {
    std::vector<std::uint32_t> from;
    for (Value v : g[id].inputs) {
      if (index_[v.node] != npos) from.push_back(index_[v.node]);
      else from.insert(from.end(), sources[v.node].begin(), sources[v.node].end());
    }
    std::ranges::sort(from);
    from.erase(std::unique(from.begin(), from.end()), from.end());
    if (index_[id] != npos) {
      std::uint32_t k = index_[id];
      for (std::uint32_t p : from) succs_[p].push_back(k);
      preds_[k] = std::move(from);
    } else {
      sources[id] = std::move(from);
    }
  }
  words_ = (nodes_.size() + 63) / 64;
  closure_.assign(nodes_.size() * words_, 0);
  for (std::size_t k = nodes_.size(); k-- > 0;)
    for (std::uint32_t s : succs_[k]) {
      closure_[k * words_ + s / 64] |= std::uint64_t{1} << (s % 64);
      for (std::size_t w = 0; w < words_; ++w) closure_[k * words_ + w] |= closure_[s * words_ + w];
    }
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template KernelDag::KernelDag(Graph<BuiltinOps> const&, std::vector<char> const&);
#endif

#if !defined(AUTOGRAPH_PRECOMPILED) || defined(AUTOGRAPH_DEFINE_SCHEDULE)
AUTOGRAPH_DEFAULTS_INLINE std::size_t KernelDag::width() const {
  std::vector<std::vector<int>> adj(size());
  for (std::size_t a = 0; a < size(); ++a)
    for (std::size_t b = a + 1; b < size(); ++b)
      if (reaches(a, b)) adj[a].push_back(static_cast<int>(b));
  auto m = max_bipartite_matching(static_cast<int>(size()), static_cast<int>(size()), adj);
  return size() - static_cast<std::size_t>(std::ranges::count_if(m, [](int r) { return r >= 0; }));
}
#endif

}  // namespace autograph
