#pragma once
// Op-level placement on the CUDA runtime (Collage §4.2, issue 17's GPU side): the backends'
// candidate groups (placement/pattern_generator.hpp), each priced, the cheapest cover by the DP
// of Eq. 3 (placement/op_level_dp.hpp), and the placed graph: each group one node — the
// built-in op a RewritingCudaBackend turns it into (lowered by the runtime's own lowering), or
// a BackendGroup the backend lowers — which lower(), the schedules, capture and replay take
// as any graph.
//
//   auto placed = cuda::place(cuda::AllBackends{}, g, cuda::roofline_pricing(devices::H200::spec));
//   auto lowered = cuda::lower(placed.graph, nullptr);           // planning only, no GPU needed
//   gpu.measure(placed.graph);                                   // on a GPU (measure.hpp prices by measurement)
//
// Pricing: without a GPU, a group is priced by the roofline (cost/roofline.hpp) of the node it
// becomes — the op itself (a convolution with its ReLU fused is one kernel), or for a fused
// group the one kernel reading the group's inputs and writing its outputs. With a GPU
// (measure.hpp), by the profiler's marginal launch time, kept in the cost database.
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autograph/cost/roofline.hpp"
#include "autograph/cuda/backends/cublas_lt.hpp"
#include "autograph/cuda/backends/cuda_backend.hpp"
#include "autograph/cuda/backends/cudnn.hpp"
#include "autograph/cuda/backends/own_kernels.hpp"
#include "autograph/cuda/lower.hpp"
#include "autograph/placement/backend_registry.hpp"
#include "autograph/placement/candidate_costs.hpp"
#include "autograph/placement/measured_choice.hpp"
#include "autograph/placement/op_level_dp.hpp"
#include "autograph/placement/pattern_generator.hpp"
#include "autograph/placement/placed_graph.hpp"

namespace autograph::cuda {

using placement::Backends;
/// The CUDA runtime's backends, in the order single_backends() labels them.
using AllBackends = Backends<backends::Cudnn, backends::CublasLt, backends::OwnCudaKernels>;

/// How place() prices a candidate group: `us(node, inputs)`, the microseconds of the node the
/// group becomes reading `inputs`. With `db`, each (backend, group signature) is looked up there
/// first and only unknown ones are priced (and stored): measurements. Without, every candidate
/// is priced directly (the roofline is cheaper than a signature).
struct GroupPricing {
  std::string describe;
  std::function<double(AnyOp const& node, std::vector<TensorDesc> const& inputs)> us;
  placement::CostDatabase* db = nullptr;
  std::function<void(placement::CostProgress const&)> progress = {};
};

/// Microseconds of the node a group becomes, by `device`'s roofline (see the file comment).
/// A BackendGroup of one op is priced as that op (with its epilogue's ops, as its convolution or
/// product): the roofline cannot tell our depthwise kernel
/// from cuDNN's, nor cuBLASLt's pointwise GEMM from cuDNN's convolution (both priced as the
/// convolution's GEMM); it tells fused groups from their ops apart (one launch, the
/// intermediate tensors never written).
inline double roofline_us(DeviceSpec const& device, AnyOp const& node, std::vector<TensorDesc> const& inputs) {
  if (auto const* bg = node.get_if<BackendGroup>()) {
    auto const& body = bg->body->graph;
    auto ops = group_ops(body);
    // A group of one op, or a convolution or product with the ops its epilogue applies: the
    // roofline of that op (the epilogue reads and writes nothing more).
    auto anchor = std::ranges::find_if(ops, [&](NodeId n) { return body[n].op.is<Conv2D>() || body[n].op.is<MatMul>() || body[n].op.is<ConvTranspose2D>(); });
    if (ops.size() == 1 || anchor != ops.end()) {
      NodeId n = anchor != ops.end() ? *anchor : ops[0];
      std::vector<TensorDesc> in;
      for (Value v : body[n].inputs) in.push_back(body.desc(v));
      return RooflineCost::compute(device, body[n].op, in, body[n].outputs).us;
    }
  }
  auto out = node.infer(inputs);
  return RooflineCost::compute(device, node, inputs, out).us;
}

inline GroupPricing roofline_pricing(DeviceSpec const& device) {
  return {"roofline, " + std::string(device.name), [device](AnyOp const& node, std::vector<TensorDesc> const& in) { return roofline_us(device, node, in); }};
}

struct PlaceOptions {
  std::vector<std::string> backends = {};  // the backends the placement may use (names); empty: all
  std::string alone = {};                  // a single-backend placement: this backend wherever it can (see place())
  placement::DpOptions dp = {};            // epsilon in microseconds
};

struct PlacedGraph {
  std::string label;                        // "op-level placement", "cudnn (+ own, cublaslt for the rest)"
  Graph<PlacedOps> graph;
  std::vector<std::string> node_backend;    // by node id of `graph`: the backend running it (empty: not a kernel)
  placement::Placement placement;           // costs in microseconds
  std::vector<placement::GeneratorStats> generator;
  placement::CandidateCosts costs;
  std::vector<placement::Candidate> candidate_groups;  // what the DP chose from (costs.us by index)
  double generate_seconds = 0, dp_seconds = 0;         // search time, pricing excluded
};

namespace detail {

/// What the placed graph needs of each backend, type-erased.
struct CudaBackendOps {
  std::function<void(Graph<BuiltinOps> const&, Lowering&)> lower;
  std::function<std::optional<AnyOp>(Graph<BuiltinOps> const&)> as_op;
};

template <CudaBackend B>
CudaBackendOps cuda_backend_ops() {
  CudaBackendOps ops;
  ops.lower = [](Graph<BuiltinOps> const& group, Lowering& l) { B{}.lower(group, l); };
  if constexpr (RewritingCudaBackend<B>)
    ops.as_op = [](Graph<BuiltinOps> const& group) { return B{}.as_op(group); };
  else
    ops.as_op = [](Graph<BuiltinOps> const&) { return std::optional<AnyOp>{}; };
  return ops;
}

/// The node a group becomes: the built-in op as_op() gives (a one-op group stays that op
/// whatever its outputs, a fused group only with one output), or a BackendGroup.
inline placement::GroupNode group_node(CudaBackendOps const& backend, std::string const& name, std::string const& pattern, placement::GroupGraph const& gg) {
  bool one_op = group_ops(gg.graph).size() == 1;
  if (gg.outputs.size() == 1 || one_op)
    if (auto op = backend.as_op(gg.graph)) return {*op, one_op};
  auto body = std::make_shared<GroupBody>(GroupBody{gg.graph, name, pattern, backend.lower});
  return {AnyOp{BackendGroup{std::move(body)}}, false};
}

template <class... B>
std::vector<std::string> backend_names() {
  return {std::string(B::name)...};
}

}  // namespace detail

/// The graph `g` run as `p` says (placement/placed_graph.hpp), each group lowered by its backend.
/// @throws Error when `p` names a backend not in B...
template <class... B>
Graph<PlacedOps> placed_graph(Backends<B...>, Graph<BuiltinOps> const& g, placement::Placement const& p,
                              std::vector<std::string>* node_backend = nullptr) {
  static_assert((CudaBackend<B> && ...), "every backend placed on the CUDA runtime must model cuda::CudaBackend (cuda/backends/cuda_backend.hpp)");
  std::vector<detail::CudaBackendOps> ops{detail::cuda_backend_ops<B>()...};
  auto names = detail::backend_names<B...>();
  return placement::placed_graph<PlacedOps>(
      g, p,
      [&](placement::PlacedGroup const& pg, placement::GroupGraph const& gg) {
        auto const& backend = p.backends.at(pg.backend);
        auto it = std::ranges::find(names, backend);
        if (it == names.end()) throw Error("cuda::placed_graph(): the placement uses backend '" + backend + "', which is not in the list given");
        return detail::group_node(ops[static_cast<std::size_t>(it - names.begin())], backend, pg.pattern, gg);
      },
      node_backend);
}

/// Only the candidates of a single-backend placement: every candidate of `alone`, and for the
/// nodes none of them contains, the other backends' one-op candidates (the runtime's one
/// kernel per op there). @throws Error when `alone` is not one of `names`.
inline std::vector<placement::Candidate> alone_candidates(std::vector<placement::Candidate> all, std::vector<std::string> const& names,
                                                          std::string const& alone) {
  auto it = std::ranges::find(names, alone);
  if (it == names.end()) throw Error("place(): no backend called '" + alone + "'");
  auto const b = static_cast<std::uint32_t>(it - names.begin());
  std::set<NodeId> covered;
  for (auto const& c : all)
    if (c.backend == b) covered.insert(c.group.nodes.begin(), c.group.nodes.end());
  std::vector<placement::Candidate> r;
  for (auto& c : all)
    if (c.backend == b || (c.group.size() == 1 && !covered.contains(c.group.nodes[0]))) r.push_back(std::move(c));
  return r;
}

/// The op-level placement of `g` (see the file comment): candidates of the allowed backends
/// (or of `o.alone` as alone_candidates() keeps them), priced by `pricing`, the DP's cover.
/// @throws Error naming a node no allowed backend runs; a backend that claims a group and cannot
/// run it when it is measured (candidate_costs), or when the placed graph is lowered (CudaError
/// naming the backend and the group, Kernel<BackendGroup>).
template <class... B>
PlacedGraph place(Backends<B...> backends, Graph<BuiltinOps> const& g, GroupPricing const& pricing, PlaceOptions const& o = {}) {
  using Clock = std::chrono::steady_clock;
  PlacedGraph r;
  r.label = o.alone.empty() ? "op-level placement" : o.alone;
  GraphFacts<BuiltinOps> facts(g);
  auto registry = Backends<B...>::template registry<BuiltinOps>();
  auto names = detail::backend_names<B...>();
  for (auto const& want : o.backends)
    if (std::ranges::find(names, want) == names.end()) throw Error("place(): no backend called '" + want + "'");
  auto t0 = Clock::now();
  auto generated = placement::generate_candidates(facts, registry);
  std::vector<placement::Candidate> candidates;
  for (auto& c : generated.candidates)
    if (o.backends.empty() || std::ranges::find(o.backends, names[c.backend]) != o.backends.end()) candidates.push_back(std::move(c));
  if (!o.alone.empty()) candidates = alone_candidates(std::move(candidates), names, o.alone);
  r.generate_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.generator = std::move(generated.stats);

  std::vector<detail::CudaBackendOps> ops{detail::cuda_backend_ops<B>()...};
  auto price = [&](placement::Candidate const& c) {
    placement::GroupGraph gg = placement::group_graph(g, c.group);
    placement::GroupNode node = detail::group_node(ops[c.backend], names[c.backend], c.pattern, gg);
    std::vector<TensorDesc> in;
    for (Value v : gg.inputs) in.push_back(g.desc(v));
    return pricing.us(node.op, in);
  };
  if (pricing.db) {
    r.costs = placement::candidate_costs(facts, std::span<placement::Candidate const>(candidates), std::span<std::string const>(names), *pricing.db,
                                         price, pricing.progress);
  } else {
    auto t1 = Clock::now();
    for (auto const& c : candidates) r.costs.us.push_back(price(c));
    r.costs.distinct = r.costs.measured = candidates.size();
    r.costs.measuring_seconds = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  auto by_index = [&](placement::Candidate const& c) { return r.costs.us[static_cast<std::size_t>(&c - candidates.data())]; };
  r.placement = placement::op_level_dp(facts, std::span<placement::Candidate const>(candidates), names, by_index, o.dp);
  r.dp_seconds = r.placement.seconds;
  r.graph = placed_graph(backends, g, r.placement, &r.node_backend);
  r.candidate_groups = std::move(candidates);
  return r;
}

/// A single-backend placement: `alone` wherever it has a candidate, one kernel per op of the
/// others for the rest (alone_candidates()).
struct SingleBackend {
  std::string label;  // "cudnn (+ cublaslt, own for the rest)"
  std::string alone;
};

/// Every backend of the list as a single-backend placement, in the list's order. No backend of
/// the CUDA runtime runs every op (cuDNN has no elementwise kernels, ours no convolutions but
/// the depthwise one), so each has the others for what it cannot run.
template <class... B>
std::vector<SingleBackend> single_backends(Backends<B...>) {
  auto names = detail::backend_names<B...>();
  std::vector<SingleBackend> r;
  for (auto const& n : names) {
    std::string rest;
    for (auto const& m : names)
      if (m != n) rest += (rest.empty() ? "" : ", ") + m;
    r.push_back({n + " (+ " + rest + " for the rest)", n});
  }
  return r;
}

/// How many nodes of `placed` each backend runs, "cudnn 94, own 211": what the benchmark prints.
inline std::string nodes_per_backend(PlacedGraph const& placed) {
  std::map<std::string, std::size_t> count;
  for (auto const& b : placed.node_backend)
    if (!b.empty()) ++count[b];
  std::string s;
  for (auto const& [b, n] : count) s += (s.empty() ? "" : ", ") + b + " " + std::to_string(n);
  return s;
}

}  // namespace autograph::cuda

namespace autograph::cuda {
// Compiled once in the autograph_cuda library (src/cuda/lower_placed.cpp).
extern template std::shared_ptr<LoweredGraph const> lower<PlacedOps>(Graph<PlacedOps> const&, Device*, LowerOptions const&, ConstantCache*);
}  // namespace autograph::cuda
