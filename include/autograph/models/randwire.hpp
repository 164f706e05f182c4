#pragma once
// RandWire-WS (Xie et al., "Exploring Randomly Wired Neural Networks for Image Recognition"),
// small regime, as IOS benchmarks randomly wired networks:
//
//   conv1  3x3/2 conv (C/2) + BN + ReLU                         112x112 at 224
//   conv2  3x3/2 conv (C) + BN                                  56x56
//   conv3  random stage, N nodes, C channels                    28x28
//   conv4  random stage, N nodes, 2C channels                   14x14
//   conv5  random stage, N nodes, 4C channels                   7x7
//   classifier  ReLU, 1x1 conv (1280) + BN + ReLU, global average pool, fully connected 1000
// with C = 78, N = 32 and WS(N, K = 4, P = 0.75) wiring.
//
// A random stage: the undirected WS graph's edges point from the lower to the higher node
// index, which makes it a DAG. A node sums its inputs (IOS's aggregation; the paper's learned
// positive edge weights are a training-time parameterisation of the same sum), then applies the
// ReLU - separable 3x3 conv (depthwise 3x3 + pointwise 1x1) - BN triplet. Nodes without
// predecessors read the stage input with stride 2; the stage output is the average of the nodes
// without successors.
//
// WS(N, K, P) (the paper's definition, the generator IOS ships): N nodes on a ring, each joined
// to its K/2 neighbours on either side; then for i = 1..K/2, for every node v clockwise, the
// edge to v's i-th clockwise neighbour is rewired with probability P to a uniformly chosen node
// that is not v and not already v's neighbour. The three stage graphs are drawn one after
// another from a single std::mt19937_64 seeded with ModelOptions::seed: the same seed gives the
// same network on every platform (the draws use only the engine's raw 64-bit output).
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct RandWireConfig {
  std::int64_t channels = 78;  // C
  int nodes = 32;              // N, per random stage
  int k = 4;                   // K: ring neighbours (even)
  double p = 0.75;             // P: rewiring probability
  std::int64_t num_classes = 1000;
};

/// A random stage's wiring: directed edges (from, to) with from < to, sorted.
struct Wiring {
  int nodes = 0;
  std::vector<std::pair<int, int>> edges;

  std::vector<std::vector<int>> predecessors() const {
    std::vector<std::vector<int>> p(static_cast<std::size_t>(nodes));
    for (auto [u, v] : edges) p[static_cast<std::size_t>(v)].push_back(u);
    return p;
  }
  std::vector<bool> has_successor() const {
    std::vector<bool> s(static_cast<std::size_t>(nodes), false);
    for (auto [u, v] : edges) s[static_cast<std::size_t>(u)] = true;
    return s;
  }
};

namespace detail {

/// A uniform double in [0, 1) and a uniform index in [0, n) from the engine's raw output, so
/// the wiring does not depend on the standard library's distribution implementations.
inline double unit_uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
inline std::size_t uniform_index(std::mt19937_64& rng, std::size_t n) {
  std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;  // reject the biased tail
  std::uint64_t r;
  do r = rng();
  while (r >= limit);
  return static_cast<std::size_t>(r % n);
}

}  // namespace detail

/// One WS(n, k, p) graph drawn from `rng`, oriented from lower to higher index.
inline Wiring watts_strogatz(int n, int k, double p, std::mt19937_64& rng) {
  if (k % 2 != 0 || k <= 0 || k >= n)
    throw Error("watts_strogatz: K must be even and 0 < K < N, got K=" + std::to_string(k) + " N=" + std::to_string(n));
  auto idx = [](int i) { return static_cast<std::size_t>(i); };
  std::vector<std::vector<bool>> adj(idx(n), std::vector<bool>(idx(n), false));
  for (int i = 0; i < n; ++i) {
    adj[idx(i)][idx(i)] = true;  // excludes self-loops from the rewiring targets
    for (int j = 1; j <= k / 2; ++j) adj[idx(i)][idx((i + j) % n)] = adj[idx((i + j) % n)][idx(i)] = true;
  }
  for (int j = 1; j <= k / 2; ++j)
    for (int i = 0; i < n; ++i) {
      if (detail::unit_uniform(rng) >= p) continue;
      std::vector<int> free;
      for (int x = 0; x < n; ++x)
        if (!adj[idx(i)][idx(x)]) free.push_back(x);
      if (free.empty()) continue;
      int current = (i + j) % n, target = free[detail::uniform_index(rng, free.size())];
      adj[idx(i)][idx(current)] = adj[idx(current)][idx(i)] = false;
      adj[idx(i)][idx(target)] = adj[idx(target)][idx(i)] = true;
    }
  Wiring w{n, {}};
  for (int u = 0; u < n; ++u)
    for (int v = u + 1; v < n; ++v)
      if (adj[idx(u)][idx(v)]) w.edges.emplace_back(u, v);
  return w;
}

/// The three stage wirings RandWire-WS draws for `seed`.
inline std::vector<Wiring> randwire_wirings(RandWireConfig const& c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Wiring> w;
  for (int stage = 0; stage < 3; ++stage) w.push_back(watts_strogatz(c.nodes, c.k, c.p, rng));
  return w;
}

namespace detail {

inline Value randwire_stage(GraphBuilder<>& b, Value x, std::int64_t channels, Wiring const& w) {
  auto preds = w.predecessors();
  auto has_succ = w.has_successor();
  std::vector<Value> out(static_cast<std::size_t>(w.nodes));
  for (int u = 0; u < w.nodes; ++u) {  // edges point up the index order: it is topological
    auto s = b.scope("node" + std::to_string(u));
    auto const& in = preds[static_cast<std::size_t>(u)];
    Value sum = x;
    if (!in.empty()) {
      sum = out[static_cast<std::size_t>(in[0])];
      for (std::size_t i = 1; i < in.size(); ++i) sum = b.add(sum, out[static_cast<std::size_t>(in[i])], "aggregate");
    }
    std::int64_t stride = in.empty() ? 2 : 1, c = b.shape(sum)[1];
    Value y = b.conv2d(b.relu(sum, "relu"), c, {3, 3}, {.stride = {stride, stride}, .pad = pad2(1, 1), .groups = c}, "depthwise");
    y = b.conv2d(y, channels, {1, 1}, {.pad = pad2(0, 0)}, "pointwise");
    out[static_cast<std::size_t>(u)] = b.batch_norm(y, 1e-5f, "bn");
  }
  std::vector<Value> sinks;
  for (int u = 0; u < w.nodes; ++u)
    if (!has_succ[static_cast<std::size_t>(u)]) sinks.push_back(out[static_cast<std::size_t>(u)]);
  Value sum = sinks[0];
  for (std::size_t i = 1; i < sinks.size(); ++i) sum = b.add(sum, sinks[i], "output_sum");
  return sinks.size() == 1 ? sum : b.scale(sum, 1.f / static_cast<float>(sinks.size()), 0.f, "output_mean");
}

}  // namespace detail

/// RandWire-WS with the given configuration; input [batch, 3, side, side] (224 by default),
/// output [batch, num_classes] logits. ModelOptions::seed picks the wiring.
inline Graph<> randwire(RandWireConfig const& c, ModelOptions const& o = {}, std::string const& model = "randwire") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = resolution_of(o, model, 224, 1);
  auto wirings = randwire_wirings(c, o.seed);
  auto b = builder_for(o);
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  x = b.conv2d(x, c.channels / 2, {3, 3}, {.stride = {2, 2}, .pad = pad2(1, 1)}, "conv1");
  x = b.relu(b.batch_norm(x, 1e-5f, "conv1_bn"), "conv1_relu");
  x = b.batch_norm(b.conv2d(x, c.channels, {3, 3}, {.stride = {2, 2}, .pad = pad2(1, 1)}, "conv2"), 1e-5f, "conv2_bn");
  for (std::size_t stage = 0; stage < 3; ++stage) {
    auto s = b.scope("conv" + std::to_string(stage + 3));
    x = randwire_stage(b, x, c.channels << stage, wirings[stage]);
  }
  x = b.conv2d(b.relu(x, "classifier_relu"), 1280, {1, 1}, {.pad = pad2(0, 0)}, "classifier_conv");
  x = b.relu(b.batch_norm(x, 1e-5f, "classifier_bn"), "classifier_bn_relu");
  x = flatten(b, b.global_avg_pool(x, "global_pool"));
  Value logits = b.linear(x, c.num_classes, true, Activation::none, "fc");
  return finish(std::move(b), {logits}, o);
}

/// RandWire-WS, small regime (C = 78, N = 32, WS(4, 0.75)); ModelOptions::seed picks the wiring.
inline Graph<> randwire_ws(ModelOptions const& o = {}) { return randwire(RandWireConfig{}, o, "randwire_ws"); }

}  // namespace autograph::models
