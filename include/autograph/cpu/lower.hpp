#pragma once
// lower(graph): the only part of the CPU runtime that is generic over the operator set.
// Visits every node once:
//   Input               -> a static input buffer (inputs are copied there before a run)
//   Weight, and nodes computed from weights alone (constant folding)
//                       -> evaluated once on the host with the reference kernels
//   a node that runs no kernel (Reshape, a contiguous Split; kernel_mask)
//                       -> views of its input
//   every other node    -> its cpu::Kernel<Op>::prepare, or its reference kernel when the op
//                          has no CPU kernel (copying in and out, allocating on every run)
// The result is set-independent (CpuGraph); planning, binding and running take it from there.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cost/op_cost_model.hpp"
#include "autograph/cpu/kernel.hpp"
#include "autograph/cpu/lowered_graph.hpp"
#include "autograph/cpu/ops.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/stats.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weight_only.hpp"
#include "autograph/runtime/plan/host_constants.hpp"
#include "autograph/runtime/plan/planned_graph_check.hpp"
#include "autograph/runtime/reference_kernel.hpp"
#include "autograph/schedule/kernel_dag.hpp"

namespace autograph::cpu {

/// Which of a graph's 4-D boundary values may be channels-last (LowerOptions::boundary). A graph
/// timed as a part of a model (a placement group, cpu/backends/place.hpp) sees its inputs and
/// outputs as its neighbours there leave them: channels-last between kernels that keep it.
/// run() copies plain data in and out, so a graph lowered with either set is for timing only.
struct BoundaryChannelsLast {
  bool inputs = false;   // a 4-D graph input every reader takes channels-last is channels-last
  bool outputs = false;  // a 4-D graph output whose producer gives channels-last is channels-last
};

struct LowerOptions {
  /// Seed for weights that have only a shape (search candidates being timed); unset: such a
  /// weight is an error, as in the reference executor.
  std::optional<std::uint64_t> random_weights = std::nullopt;
  /// Keep 4-D tensors channels-last between the kernels that take them (Layout), so that
  /// convolutions run oneDNN's direct kernels without reordering their input and output on
  /// every run (ResNet-50 on 2 AVX-512 cores: see README). Off: every tensor plain.
  bool channels_last = true;
  /// With channels_last: the graph's inputs and outputs too (timing only, see BoundaryChannelsLast).
  BoundaryChannelsLast boundary = {};
};

namespace detail {

/// How an op without a CPU kernel runs: its reference kernel on copies of its inputs.
template <class Op>
void prepare_reference(Op const& op, Preparation& p) {
  std::vector<TensorDesc> in(p.inputs().begin(), p.inputs().end()), out(p.outputs().begin(), p.outputs().end());
  p.run("reference kernel (copies, allocates)", [op, in, out, label = p.label()](Io const& io) -> Runner {
    return [op, in, out, label, x = std::vector<float const*>(io.in.begin(), io.in.end()),
            y = std::vector<float*>(io.out.begin(), io.out.end())] {
      std::vector<Tensor> args;
      for (std::size_t i = 0; i < in.size(); ++i) {
        auto n = static_cast<std::size_t>(in[i].numel());
        args.emplace_back(in[i].shape, x[i] ? std::vector<float>(x[i], x[i] + n) : std::vector<float>(n));
      }
      std::vector<Tensor> results = reference::evaluate(op, args, out);
      if (results.size() != out.size()) throw ExecutionError(label + ": the reference kernel returned " + std::to_string(results.size()) +
                                                             " tensors for " + std::to_string(out.size()) + " outputs");
      for (std::size_t j = 0; j < out.size(); ++j) {
        auto data = results[j].data();
        if (data.size() != static_cast<std::size_t>(out[j].numel()))
          throw ExecutionError(label + ": the reference kernel's output " + std::to_string(j) + " has " + std::to_string(data.size()) +
                               " elements, its shape " + out[j].shape.to_string() + " has " + std::to_string(out[j].numel()));
        if (y[j]) std::copy(data.begin(), data.end(), y[j]);
      }
    };
  });
}

}  // namespace detail

/// Gives channels-last to every 4-D buffer whose producer writes it that way and whose every
/// reader, a kernel, reads it that way; graph inputs and outputs, views and their parents stay
/// plain (but the boundary values `boundary` names).
inline void choose_channels_last(CpuGraph& g, BoundaryChannelsLast boundary = {}) {
  std::vector<char> ok(g.values.size(), 0);
  for (std::size_t v = 0; v < g.values.size(); ++v) {
    auto const& pv = g.values[v];
    CpuGraph::Node const* producer = pv.kind == PlannedValue::Kind::buffer ? g.node(pv.producer) : nullptr;
    bool written = producer && producer->gives_channels_last;
    bool input = boundary.inputs && pv.kind == PlannedValue::Kind::input;
    ok[v] = (written || input) && pv.desc.shape.rank() == 4 && pv.parent == PlannedValue::npos;
  }
  for (auto const& n : g.nodes)
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
      if (!n.kernel || i >= n.takes_channels_last.size() || !n.takes_channels_last[i]) ok[n.inputs[i]] = 0;
  if (!boundary.outputs)
    for (auto v : g.outputs) ok[v] = 0;
  g.layouts.assign(g.values.size(), Layout::plain);
  for (std::size_t v = 0; v < g.values.size(); ++v)
    if (ok[v]) g.layouts[v] = Layout::channels_last;
}

/// Lowers `g` for the CPU runtime.
/// @throws ExecutionError for a weight without data when options.random_weights is unset, or
/// a node that runs no kernel and is not a view of its input.
template <class Set>
std::shared_ptr<CpuGraph const> lower(Graph<Set> const& g, LowerOptions const& options = {}) {
  using Kind = PlannedValue::Kind;
  auto order = topological_order(g);
  auto constant = weight_only_nodes(g);
  auto kernel = kernel_mask(g);

  std::set<Value> needed = constant_values_read(g, order, constant);

  auto cg = std::make_shared<CpuGraph>();
  cg->reset(g.id_bound());

  HostConstants<Set> host(g, options.random_weights, "the CPU runtime");
  for (NodeId id : order) {
    auto const& n = g[id];
    if (auto const* in = n.template get_if<Input>()) {
      cg->add_input(id, in->label, in->desc);
      continue;
    }
    if (constant[id]) {
      for (std::uint32_t port = 0; port < n.outputs.size(); ++port) {
        auto v = cg->add_constant(id, n.outputs[port], needed.contains(Value{id, port}));
        if (cg->values[v].kind == Kind::constant) cg->constants.push_back(host.value(Value{id, port}));
      }
      continue;
    }
    CpuGraph::Node node;
    node.id = id;
    node.label = g.label(id);
    node.kernel = kernel[id] != 0;
    for (Value v : n.inputs) {
      node.inputs.push_back(cg->value(v));
      node.constant_inputs.push_back(constant[v.node]);
    }
    std::vector<TensorDesc> in_descs = input_descs(g, id);
    if (node.kernel) {
      for (auto const& d : n.outputs) node.outputs.push_back(cg->add_value(id, d, Kind::buffer));
      node.flops = n.op.flops(in_descs, n.outputs);
      node.bytes = n.op.bytes(in_descs, n.outputs);
      visit_op<Set>(n.op, [&](auto const& op) {
        using Op = std::remove_cvref_t<decltype(op)>;
        static_assert(HasCpuKernel<Op> || ReferenceExecutable<Op>,
                      "no way to run this op on the CPU runtime: specialise autograph::cpu::Kernel<YourOp> with "
                      "static void prepare(YourOp const&, autograph::cpu::Preparation&) (see autograph/cpu/kernel.hpp), "
                      "or give it a reference kernel");
        if constexpr (is_source_op<Op>) {
          throw ExecutionError(node.label + ": the CPU runtime cannot run a source operator other than Input and Weight");
        } else if constexpr (HasCpuKernel<Op>) {
          node.prepare = [op](Preparation& p) { Kernel<Op>::prepare(op, p); };
          if constexpr (ChannelsLastKernel<Op>) {
            for (std::size_t i = 0; i < in_descs.size(); ++i)
              node.takes_channels_last.push_back(Kernel<Op>::takes_channels_last(op, in_descs, i) ? 1 : 0);
            node.gives_channels_last = Kernel<Op>::gives_channels_last(op, in_descs);
          }
        } else {
          node.prepare = [op](Preparation& p) { detail::prepare_reference(op, p); };
          node.fallback = true;
        }
      });
    } else if (writes_nothing(n.outputs)) {
      for (auto const& d : n.outputs) node.outputs.push_back(cg->add_value(id, d, Kind::empty));
    } else {
      // No kernel: every output is a range of the first input (a Reshape, a contiguous Split).
      bool split = is_contiguous_split(n.op, in_descs);
      std::int64_t offset = 0;
      for (auto const& d : n.outputs) {
        if (in_descs.empty() || (!split && d.numel() != in_descs[0].numel()) || offset + d.numel() > in_descs[0].numel())
          throw ExecutionError(node.label + ": runs no kernel, and its output " + d.shape.to_string() +
                               " is not a view of its input; the CPU runtime cannot run it");
        auto v = cg->add_value(id, d, Kind::view);
        cg->make_view(v, node.inputs[0], offset);
        node.outputs.push_back(v);
        if (split) offset += d.numel();
      }
    }
    cg->add_node(std::move(node));
  }
  KernelDag dag(g, kernel);
  cg->set_preds(dag);
  cg->set_outputs(g.outputs());
  check_planned_graph(*cg, dag);
  if (options.channels_last) choose_channels_last(*cg, options.boundary);
  else cg->layouts.assign(cg->values.size(), Layout::plain);
  return cg;
}

#if defined(AUTOGRAPH_CPU_PRECOMPILED)
// Compiled once in src/cpu/lower.cpp for the programs that link autograph::cpu: lowering the
// built-in operators (with the host-side constant folding it reaches) took about 7 s of CPU in
// every file that measured on the CPU runtime.
extern template std::shared_ptr<CpuGraph const> lower<BuiltinOps>(Graph<BuiltinOps> const&, LowerOptions const&);
#endif

}  // namespace autograph::cpu
