#pragma once
// lower(graph): the only part of the CUDA runtime that is generic over the operator set.
// Visits every node once:
//   Input               -> a static device buffer (inputs are copied there before each replay)
//   Weight, and nodes computed from weights alone (kernel_mask's constant folding)
//                       -> evaluated on the host with the reference kernels and uploaded,
//                          once per contents (ConstantCache)
//   every other node    -> cuda::Kernel<Op>::lower: views, workspaces, launches
// The result is set-independent (LoweredGraph); planning, capture and replay take it from there.
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "autograph/cost/inference_kernels.hpp"
#include "autograph/cuda/kernel.hpp"
#include "autograph/cuda/lowered_graph.hpp"
#include "autograph/cuda/ops.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/runtime/cpu/kernels.hpp"
#include "autograph/runtime/plan/host_constants.hpp"
#include "autograph/runtime/reference_kernel.hpp"
#include "autograph/schedule/kernel_dag.hpp"

namespace autograph::cuda {


/// Lowers `g` for `device`. Constants are uploaded (through `cache` when given).
/// With no device, lowers for planning only: views, in-place concatenation, workspaces and
/// launches are decided and nothing is allocated (host code can plan memory and check a
/// schedule without a GPU); convolutions (cuDNN chooses their algorithm by running it) then
/// throw CudaError, and matrix products reserve cuBLASLt's workspace cap with a launch that
/// refuses to run.
/// @throws CudaError for an unsupported node (before anything is launched), ExecutionError
/// for a weight without data when options.random_weights is unset.
template <class Set>
std::shared_ptr<LoweredGraph const> lower(Graph<Set> const& g, Device* device, LowerOptions const& options = {},
                                          ConstantCache* cache = nullptr) {
  auto order = topological_order(g);
  auto constant = weight_only_nodes(g);
  auto kernel = kernel_mask(g);

  std::set<Value> needed = constant_values_read(g, order, constant);

  HostConstants<Set> host(g, options.random_weights, "the CUDA runtime");
  detail::LoweringBuilder b(device, options, cache, g.id_bound());
  for (NodeId id : order) {
    auto const& n = g[id];
    if (auto const* in = n.template get_if<Input>()) {
      b.add_input(id, in->label, in->desc);
      continue;
    }
    if (constant[id]) {
      for (std::uint32_t port = 0; port < n.outputs.size(); ++port) {
        Value v{id, port};
        std::vector<std::shared_ptr<void const>> keepalive;
        bool read = needed.contains(v);
        if (read) host.leaves(id, keepalive);
        b.add_constant(id, n.outputs[port], read, read ? hash_combine(host.key(id), port) : 0, [&] { return host.value(v); },
                       std::move(keepalive));
      }
      continue;
    }
    std::string label = g.label(id);
    visit_op<Set>(n.op, [&](auto const& op) {
      using Op = std::remove_cvref_t<decltype(op)>;
      static_assert(CudaExecutable<Op>,
                    "no CUDA kernel for this op: specialise autograph::cuda::Kernel<YourOp> with "
                    "static void lower(YourOp const&, autograph::cuda::Lowering&) (see autograph/cuda/kernel.hpp)");
      if constexpr (is_source_op<Op>) {
        throw CudaError(label + ": unsupported on the CUDA runtime: a source operator other than Input and Weight");
      } else {
        if (std::optional<Lowering> l = b.begin_node(id, label, kernel[id] != 0, n.inputs, n.outputs)) {
          try {
            Kernel<Op>::lower(op, *l);
          } catch (CudaError const& e) {  // name the node unless the message already does
            if (std::string_view(e.what()).starts_with(label)) throw;
            throw CudaError(label + ": " + e.what());
          }
          b.end_node();
        }
      }
    });
  }
  return b.finish(KernelDag(g, kernel), g.outputs());
}

}  // namespace autograph::cuda

namespace autograph::cuda {
// Compiled once in the autograph_cuda library (src/cuda/lower_builtin.cpp) for the default
// operator set; every program using the CUDA runtime links that library anyway.
extern template std::shared_ptr<LoweredGraph const> lower<BuiltinOps>(Graph<BuiltinOps> const&, Device*, LowerOptions const&, ConstantCache*);
}  // namespace autograph::cuda
