#pragma once
// Flow-based graph partition (MetaFlow §5, AutoGraph §4.2).
//
// A large graph is split recursively by a minimum vertex cut until every part has at most
// `size_lower` operators; the capacity of a node is the number of rule mappings that would be
// cut if the partition separated at it (plus one, so that among equally cheap cuts the
// smallest wins). The cut is found on the node-split flow network with Boost.Graph's
// Boykov–Kolmogorov max-flow. Adjacent parts are then merged while they stay within
// `merge_upper` operators. The result records each part's nodes, the part adjacency and the
// beginning set (parts that read no other part).
#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <vector>

// GCC 12 reports a false -Wmaybe-uninitialized inside Boost's edge iterator when the
// max-flow is inlined; the location is in these headers, so silence it for them only.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/boykov_kolmogorov_max_flow.hpp>
#pragma GCC diagnostic pop

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

struct PartitionOptions {
  std::size_t size_lower = 40;   // split parts larger than this
  std::size_t merge_upper = 120; // merge consecutive parts up to this size
};

struct Partition {
  std::vector<std::vector<NodeId>> parts;      // operator nodes of each part, topologically ordered
  std::vector<std::vector<std::size_t>> succ;  // part adjacency: parts that read part i
  std::vector<std::size_t> beginning;          // parts with no predecessor part
  std::vector<std::size_t> part_of;            // NodeId -> part (npos for source nodes)
  std::size_t cut_capacity = 0;                // total capacity of all cuts made
  static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();
};

namespace detail {

/// Minimum vertex cut separating the first third of `nodes` (topological order) from the
/// last third. Returns the cut nodes. @pre nodes.size() >= 3
template <class Set>
std::vector<NodeId> min_vertex_cut(Graph<Set> const& g, std::vector<NodeId> const& nodes,
                                   std::function<std::size_t(NodeId)> const& capacity, std::size_t& cut_value) {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS,
      boost::property<boost::vertex_index_t, long,
                      boost::property<boost::vertex_color_t, boost::default_color_type,
                                      boost::property<boost::vertex_distance_t, long,
                                                      boost::property<boost::vertex_predecessor_t, Traits::edge_descriptor>>>>,
      boost::property<boost::edge_capacity_t, long,
                      boost::property<boost::edge_residual_capacity_t, long, boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  std::size_t n = nodes.size();
  std::size_t third = std::max<std::size_t>(1, n / 3);
  // "Infinite" is one more than every finite capacity together: no finite cut can reach it,
  // and flows stay far from overflow (BK adds capacities along paths, so a huge sentinel
  // such as LONG_MAX/4 overflows once a few paths share an edge).
  long inf = 1;
  for (std::size_t i = third; i + third < n; ++i) inf += static_cast<long>(capacity(nodes[i]) + 1);
  std::vector<std::size_t> local(g.id_bound(), Partition::npos);
  for (std::size_t i = 0; i < n; ++i) local[nodes[i]] = i;
  // Vertices: in(i) = 2i, out(i) = 2i+1, source = 2n, sink = 2n+1.
  FlowGraph fg(2 * n + 2);
  auto cap = get(boost::edge_capacity, fg);
  auto rev = get(boost::edge_reverse, fg);
  auto add_edge = [&](std::size_t a, std::size_t b, long c) {
    auto e = boost::add_edge(a, b, fg).first;
    auto r = boost::add_edge(b, a, fg).first;
    cap[e] = c;
    cap[r] = 0;
    rev[e] = r;
    rev[r] = e;
  };
  for (std::size_t i = 0; i < n; ++i) {
    bool pinned = i < third || i >= n - third;  // the ends stay whole: they are the terminals
    add_edge(2 * i, 2 * i + 1, pinned ? inf : static_cast<long>(capacity(nodes[i]) + 1));
    if (i < third) add_edge(2 * n, 2 * i, inf);
    if (i >= n - third) add_edge(2 * i + 1, 2 * n + 1, inf);
    for (Use u : g.users(nodes[i]))
      if (local[u.node] != Partition::npos) add_edge(2 * i + 1, 2 * local[u.node], inf);
  }
  long flow = boost::boykov_kolmogorov_max_flow(fg, 2 * n, 2 * n + 1);
  if (flow >= inf) {  // the ends touch directly: no cut of middle nodes separates them
    cut_value = 0;
    return {};
  }
  cut_value = static_cast<std::size_t>(flow);
  // After the flow, vertices coloured like the source are on its side of the minimum cut.
  auto color = get(boost::vertex_color, fg);
  auto source_color = get(color, 2 * n);
  std::vector<NodeId> cut;
  for (std::size_t i = 0; i < n; ++i)
    if (get(color, 2 * i) == source_color && get(color, 2 * i + 1) != source_color) cut.push_back(nodes[i]);
  return cut;
}

}  // namespace detail

/// Partitions the operator nodes of `g`. `capacity(node)` is the number of rule mappings
/// through the node (0 when no rule can span a cut there).
template <class Set>
Partition partition(Graph<Set> const& g, std::function<std::size_t(NodeId)> const& capacity, PartitionOptions const& opt = {}) {
  if (opt.size_lower == 0 || opt.merge_upper < opt.size_lower)
    throw Error("partition(): need 0 < size_lower <= merge_upper, got " + std::to_string(opt.size_lower) + " and " +
                std::to_string(opt.merge_upper));
  Partition result;
  // Weight transforms (constant-folded at inference) go with the operators that read them:
  // extract() copies them into every part that needs them.
  auto constant = weight_only_nodes(g);
  std::vector<NodeId> order;
  for (NodeId id : topological_order(g))
    if (is_operator_node(g, id) && !constant[id]) order.push_back(id);
  std::vector<std::size_t> position(g.id_bound(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) position[order[i]] = i;

  // Recursive bisection; `work` holds parts still too large.
  std::vector<std::vector<NodeId>> done, work;
  if (!order.empty()) work.push_back(order);
  while (!work.empty()) {
    auto nodes = std::move(work.back());
    work.pop_back();
    if (nodes.size() <= opt.size_lower) {
      done.push_back(std::move(nodes));
      continue;
    }
    std::size_t value = 0;
    auto cut = detail::min_vertex_cut(g, nodes, capacity, value);
    result.cut_capacity += value;
    // Nodes that reach the cut (or are in it) form the first half; the rest the second.
    std::vector<char> first(g.id_bound(), 0), in_set(g.id_bound(), 0);
    for (NodeId v : nodes) in_set[v] = 1;
    for (NodeId v : cut) first[v] = 1;
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
      for (Use u : g.users(*it))
        if (in_set[u.node] && first[u.node]) first[*it] = 1;
    std::vector<NodeId> a, b;
    for (NodeId v : nodes) (first[v] ? a : b).push_back(v);
    if (a.empty() || b.empty()) {  // no useful cut (e.g. one wide layer): split the order in half
      a.assign(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(nodes.size() / 2));
      b.assign(nodes.begin() + static_cast<std::ptrdiff_t>(nodes.size() / 2), nodes.end());
    }
    work.push_back(std::move(b));
    work.push_back(std::move(a));
  }
  // `done` is in bisection order (each split's first half before its second, depth first),
  // which is a topological order of the parts: a first half holds every predecessor its
  // nodes have in the split set. (Sorting parts by their first node would not be.)

  // Merge consecutive parts of that order up to merge_upper. Consecutive parts of a
  // topological order cannot have a third part on a path between them, so a merge never makes
  // the part graph cyclic. They need not be connected: NasNet's bisection leaves many small
  // parts side by side (parallel branches), and requiring a shared edge left 51 parts of ~17
  // ops on NasNet-A Large, whose DP then ran out of states. A chunk of parallel branches is
  // what merge rules want anyway.
  std::vector<std::size_t> part_of(g.id_bound(), Partition::npos);
  for (auto& p : done) {
    if (!result.parts.empty() && result.parts.back().size() + p.size() <= opt.merge_upper) {
      result.parts.back().insert(result.parts.back().end(), p.begin(), p.end());
    } else {
      result.parts.push_back(std::move(p));
    }
  }
  for (std::size_t i = 0; i < result.parts.size(); ++i) {
    std::ranges::sort(result.parts[i], {}, [&](NodeId v) { return position[v]; });
    for (NodeId v : result.parts[i]) part_of[v] = i;
  }
  // Part adjacency and the beginning set.
  result.succ.assign(result.parts.size(), {});
  std::vector<std::size_t> preds(result.parts.size(), 0);
  for (std::size_t i = 0; i < result.parts.size(); ++i) {
    for (NodeId v : result.parts[i])
      for (Use u : g.users(v)) {
        std::size_t j = part_of[u.node];
        if (j != Partition::npos && j != i && std::ranges::find(result.succ[i], j) == result.succ[i].end()) {
          result.succ[i].push_back(j);
          ++preds[j];
        }
      }
  }
  for (std::size_t i = 0; i < result.parts.size(); ++i)
    if (preds[i] == 0) result.beginning.push_back(i);
  result.part_of = std::move(part_of);
  return result;
}

#if defined(AUTOGRAPH_PRECOMPILED)
// Compiled once in src/defaults/partition.cpp: Boost's max-flow took a test file of the
// partition ~7 s of CPU, and every search compiled it again.
extern template Partition partition<BuiltinOps>(Graph<BuiltinOps> const&, std::function<std::size_t(NodeId)> const&, PartitionOptions const&);
#endif

}  // namespace autograph
