#pragma once
// Random DAGs for schedule tests: every node keeps the shape [1, C, H, W], so any op can read
// any earlier value; convolutions, pools and elementwise ops give kernels of different costs.
#include <autograph/graph/builder.hpp>
#include <autograph/schedule/kernel_dag.hpp>
#include <autograph/schedule/schedule.hpp>

#include <functional>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace autograph::test {

struct RandomDagOptions {
  std::size_t kernels = 10;
  std::int64_t channels = 16;
  std::int64_t side = 14;
  std::size_t window = 6;  // inputs are drawn from the last `window` values (0: from all)
};

inline Graph<> random_dag(std::uint64_t seed, RandomDagOptions o = {}) {
  std::mt19937_64 rng(seed);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)); };
  GraphBuilder<> b;
  std::vector<Value> values{b.input("x", {1, o.channels, o.side, o.side})};
  std::vector<char> read{0};
  auto any_value = [&] {
    std::size_t lo = o.window == 0 || values.size() <= o.window ? 0 : values.size() - o.window;
    std::size_t i = lo + pick(values.size() - lo);
    read[i] = 1;
    return values[i];
  };
  for (std::size_t k = 0; k < o.kernels; ++k) {
    Value v;
    switch (pick(6)) {
      case 0: v = b.conv2d(any_value(), o.channels, {3, 3}); break;
      case 1: v = b.conv2d(any_value(), o.channels, {1, 1}, {.act = Activation::relu}); break;
      case 2: v = b.relu(any_value()); break;
      case 3: v = b.add(any_value(), any_value()); break;
      case 4: v = b.max_pool(any_value(), {3, 3}, {.stride = {1, 1}, .pad = {1, 1, 1, 1}}); break;
      default: v = b.sigmoid(any_value()); break;
    }
    values.push_back(v);
    read.push_back(0);
  }
  std::vector<Value> outs;
  for (std::size_t i = 1; i < values.size(); ++i)
    if (!read[i]) outs.push_back(values[i]);
  return std::move(b).build(outs);
}

/// Brute force: is p certainly finished before v starts in `s`? Explores the happens-before
/// graph (stream order + waits) backwards from v, independently of HappensBefore's clocks.
inline bool brute_before(Schedule const& s, NodeId p, NodeId v) {
  std::map<NodeId, std::pair<std::size_t, std::size_t>> where;
  for (std::size_t t = 0; t < s.streams.size(); ++t)
    for (std::size_t i = 0; i < s.streams[t].size(); ++i) where[s.streams[t][i].node] = {t, i};
  std::set<NodeId> seen;
  std::vector<NodeId> stack{v};
  while (!stack.empty()) {
    NodeId x = stack.back();
    stack.pop_back();
    auto [t, i] = where.at(x);
    std::vector<NodeId> earlier = s.streams[t][i].waits;
    if (i > 0) earlier.push_back(s.streams[t][i - 1].node);
    for (NodeId y : earlier) {
      if (y == p) return true;
      if (seen.insert(y).second) stack.push_back(y);
    }
  }
  return false;
}

/// Brute force: every dependency between launched kernels is enforced.
inline bool brute_enforced(KernelDag const& dag, Schedule const& s) {
  std::set<NodeId> launched;
  for (auto const& st : s.streams)
    for (auto const& l : st) launched.insert(l.node);
  for (std::size_t k = 0; k < dag.size(); ++k)
    for (std::uint32_t p : dag.preds(k))
      if (launched.count(dag.node(k)) && launched.count(dag.node(p)) && !brute_before(s, dag.node(p), dag.node(k))) return false;
  return true;
}

/// Brute force: dropping any single wait leaves some dependency unenforced.
inline bool no_redundant_wait(KernelDag const& dag, Schedule const& s) {
  for (std::size_t t = 0; t < s.streams.size(); ++t)
    for (std::size_t i = 0; i < s.streams[t].size(); ++i)
      for (std::size_t w = 0; w < s.streams[t][i].waits.size(); ++w) {
        Schedule fewer = s;
        fewer.streams[t][i].waits.erase(fewer.streams[t][i].waits.begin() + static_cast<std::ptrdiff_t>(w));
        if (brute_enforced(dag, fewer)) return false;
      }
  return true;
}

}  // namespace autograph::test
