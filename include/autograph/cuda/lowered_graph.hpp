#pragma once
// LoweredGraph: a graph as the CUDA runtime holds it once every node has been lowered —
// where each value lives (a static input buffer, an uploaded constant, an arena buffer, or a
// view into another value) and what each node launches. Where values live, the nodes and their
// kernel DAG edges are the description the CPU runtime shares (PlannedGraph). It no longer
// depends on the operator set, so everything after lowering (memory planning, capture,
// replay) is compiled once, in the autograph_cuda library, for every graph type.
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cuda/kernel.hpp"
#include "autograph/cuda/memory.hpp"
#include "autograph/graph/value.hpp"
#include "autograph/runtime/plan/planned_graph.hpp"
#include "autograph/runtime/plan/planned_graph_check.hpp"

namespace autograph::cuda {

struct LowerOptions {
  bool allow_tf32 = true;        // matrix products on TF32 tensor cores (1e-3 relative error)
  bool views = true;             // Reshape/Identity/Split/Slice as views where the layout allows
  bool in_place_concat = true;   // producers write straight into their Concat's output
  /// Seed for weights that have only a shape (search candidates being timed); unset: such a
  /// weight is an error, as in the reference executor.
  std::optional<std::uint64_t> random_weights = std::nullopt;
};

/// What the CUDA runtime adds to each lowered node (PlannedNode): its launches and what they need.
struct NodeLaunches {
  struct Launch {
    std::string what;
    LaunchFn fn;
  };
  struct Placement {  // input `input` may be written straight into output `output` at `offset` elements
    std::uint32_t input = 0, output = 0;
    std::int64_t offset = 0;
  };
  std::vector<std::size_t> workspaces;                       // bytes
  std::vector<std::shared_ptr<DeviceBuffer const>> uploads;  // (null when planning only)
  std::vector<std::vector<std::byte>> host_uploads;          // planning only: the uploads' bytes
  std::vector<Placement> placeable;
  std::vector<std::size_t> output_alignment;  // per output: what its launches need (require_output_alignment), 0: any
  std::vector<char> placed;                   // per input
  std::vector<Launch> launches;
};

/// The device-neutral description the CPU runtime shares (PlannedGraph,
/// runtime/plan/planned_graph.hpp), plus the device, the static input buffers and the
/// uploaded constants. Two things the CPU runtime does not do show in the shared part: a
/// buffer placed into its Concat's output (in-place concatenation: PlannedValue::parent), and
/// a kernel node whose Kernel<Op>::lower declared its outputs views (LowerOptions::views: then
/// it has no launches).
struct LoweredGraph : PlannedGraph<NodeLaunches> {
  using ValueInfo = PlannedValue;
  using Launch = NodeLaunches::Launch;
  using Placement = NodeLaunches::Placement;

  Device* device = nullptr;  // null: lowered for planning only (no GPU; nothing allocated or uploaded)
  std::vector<std::shared_ptr<DeviceBuffer>> input_buffers;    // static: fixed addresses for capture (null when planning only)
  std::vector<std::shared_ptr<DeviceBuffer const>> constants;  // by slot, uploaded (null when planning only)
  std::vector<Tensor> host_constants;                          // planning only: the constants' values, by slot
};

/// Uploaded constants shared between the graphs one runtime lowers (search candidates share
/// their weights), keyed by what determines their contents. Entries keep the host storage
/// they were made from alive, so a key made from a storage address cannot be reused by
/// different data. Over capacity, entries no lowered graph uses any more are dropped.
class ConstantCache {
 public:
  explicit ConstantCache(std::size_t capacity_bytes = std::size_t{4} << 30) : capacity_(capacity_bytes) {}

  std::shared_ptr<DeviceBuffer const> find(std::uint64_t key) const {
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second.buffer;
  }
  void insert(std::uint64_t key, std::shared_ptr<DeviceBuffer const> buffer, std::vector<std::shared_ptr<void const>> keepalive) {
    bytes_ += buffer->bytes();
    auto [it, fresh] = entries_.insert_or_assign(key, Entry{std::move(buffer), std::move(keepalive)});
    (void)it;
    (void)fresh;
    if (bytes_ > capacity_) evict_unused();
  }
  std::size_t bytes() const { return bytes_; }
  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    std::shared_ptr<DeviceBuffer const> buffer;
    std::vector<std::shared_ptr<void const>> keepalive;
  };
  void evict_unused() {
    bytes_ = 0;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (it->second.buffer.use_count() == 1) {
        it = entries_.erase(it);
      } else {
        bytes_ += it->second.buffer->bytes();
        ++it;
      }
    }
  }
  std::map<std::uint64_t, Entry> entries_;
  std::size_t bytes_ = 0, capacity_;
};

namespace detail {

/// Builds a LoweredGraph node by node; lower<Set>() (autograph/cuda/lower.hpp) drives it.
class LoweringBuilder {
 public:
  /// `device` null: lower for planning only (see lower()).
  LoweringBuilder(Device* device, LowerOptions const& options, ConstantCache* cache, std::size_t id_bound);
  ~LoweringBuilder();
  LoweringBuilder(LoweringBuilder const&) = delete;
  LoweringBuilder& operator=(LoweringBuilder const&) = delete;

  void add_input(NodeId id, std::string label, TensorDesc const& desc);
  /// The next output port of a constant node. `read`: a run reads it (the device needs it),
  /// else it is empty. `key` identifies its contents; `make` computes it on the host when the
  /// cache does not hold it; `keepalive` is the host storage the key names.
  void add_constant(NodeId id, TensorDesc const& desc, bool read, std::uint64_t key, std::function<Tensor()> const& make,
                    std::vector<std::shared_ptr<void const>> keepalive);
  /// Starts lowering a node; the Lowering lives until end_node(). Nullopt when the node has
  /// nothing to compute (no output has elements): it is recorded with no launches, and
  /// end_node() must not be called.
  std::optional<Lowering> begin_node(NodeId id, std::string label, bool kernel, std::span<Value const> inputs, std::span<TensorDesc const> outputs);
  void end_node();
  /// Records the kernel DAG's edges and the graph outputs, decides in-place concatenation and
  /// checks the result (check_planned_graph). The builder is spent afterwards.
  template <class Dag>
  std::shared_ptr<LoweredGraph const> finish(Dag const& dag, std::span<Value const> outputs) {
    graph_->set_preds(dag);
    graph_->set_outputs(outputs);
    place_concat_inputs();
    check_planned_graph(*graph_, dag);
    return std::move(graph_);
  }

 private:
  void place_concat_inputs();

  Device* device_;
  LowerOptions options_;
  ConstantCache* cache_;
  std::shared_ptr<LoweredGraph> graph_;
  std::unique_ptr<NodeState> current_;
};

}  // namespace detail
}  // namespace autograph::cuda
