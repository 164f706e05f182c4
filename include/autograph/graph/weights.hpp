#pragma once
// Random data for shape-only weights, reproducible for a seed, scaled so that deep models
// stay finite (conv/matmul kernels by fan-in, BatchNorm variances positive).
#include <cmath>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"

namespace autograph {

/// Data for one weight: the same weight id and seed always give the same values.
inline Tensor random_weight_data(Weight const& w, std::uint64_t seed) {
  Shape const& s = w.desc.shape;
  std::uint64_t stream = hash_combine(seed, w.id);
  switch (w.init) {
    case WeightInit::ones: return Tensor(s, std::vector<float>(static_cast<std::size_t>(s.numel()), 1.f));
    case WeightInit::zeros: return Tensor(s);
    case WeightInit::positive: return Tensor::random(s, stream, 0.5f, 1.5f);
    case WeightInit::uniform: return Tensor::random(s, stream, -0.1f, 0.1f);
    case WeightInit::fan_in: break;
  }
  // Kaiming-uniform: keeps the activation variance roughly constant through ReLU layers.
  // An empty weight (a zero-size dimension) has no elements to fill; its fan-in is then 0,
  // not numel / 0.
  std::int64_t fan_in = s.rank() >= 2 ? (s[0] == 0 ? 0 : s.numel() / s[0]) : s.numel();
  if (s.rank() == 2) fan_in = s[0];  // matmul weights are [K, N]
  float bound = std::sqrt(6.f / static_cast<float>(std::max<std::int64_t>(fan_in, 1)));
  return Tensor::random(s, stream, -bound, bound);
}

/// Gives every shape-only weight of `g` random data. Returns how many it filled.
template <class Set>
std::size_t fill_random_weights(Graph<Set>& g, std::uint64_t seed) {
  std::size_t filled = 0;
  for (NodeId id : g.node_ids()) {
    if (auto const* w = g[id].template get_if<Weight>(); w && !w->data) {
      Weight full = *w;
      full.data = random_weight_data(*w, seed).storage();
      g.replace_op(id, std::move(full));
      ++filled;
    }
  }
  return filled;
}

}  // namespace autograph
