#pragma once
// The memory a run of a graph holds, and the check that it fits a device.
//
// A tensor lives from the node that writes it until its last reader has run (a graph output
// until the end of the run); a view (Reshape, ...) shares the storage of its first input and
// keeps it alive. Resident tensors (a device's weights and inputs) stay for the whole run.
// Running the nodes one at a time in topological_order(g), the order of the sequential
// schedule and of the reference executor, the footprint is the most bytes live at once. A
// multi-stream schedule may hold more at a time, another order less: the check asks at least
// that the graph runs in this one order, which is what rejects shapes no device could hold.
#include <cmath>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "autograph/cost/device.hpp"
#include "autograph/cost/inference_kernels.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/graph/topological_order.hpp"

namespace autograph {

/// Where a node's outputs live.
enum class Storage : char {
  none,       // takes no memory this run counts (a tensor the caller already holds)
  resident,   // held for the whole run
  allocated,  // written by the node, freed after its last reader
  view,       // the storage of the node's first input
};

struct MemoryFootprint {
  double resident_bytes = 0;   // tensors held for the whole run
  double peak_bytes = 0;       // the most bytes live at once, resident ones included
  NodeId peak_node = no_node;  // the node that writes the last tensor of that peak
  double largest_bytes = 0;    // the largest single tensor of the resident and allocated ones
  Value largest{no_node, 0};   // that tensor
};

/// The footprint of running `g` one node at a time in `order` (topological_order(g)).
/// `storage_of(id)` says where node id's outputs live; `bytes(desc)` what one tensor takes.
template <class Set, class StorageOf, class BytesOf>
MemoryFootprint memory_footprint(Graph<Set> const& g, std::span<NodeId const> order, StorageOf storage_of, BytesOf bytes) {
  std::vector<Storage> storage(g.id_bound(), Storage::none);
  std::vector<NodeId> root(g.id_bound(), no_node);  // the node whose storage a node's outputs are
  std::vector<std::size_t> readers(g.id_bound(), 0);  // uses of a storage not yet run (+1 per graph output)
  for (NodeId id : order) {
    auto const& n = g[id];
    Storage s = storage_of(id);
    storage[id] = s == Storage::view && n.inputs.empty() ? Storage::allocated : s;  // a view of nothing holds its own
    root[id] = storage[id] == Storage::view ? root[n.inputs[0].node] : id;
    for (Value v : n.inputs) ++readers[root[v.node]];
  }
  for (Value o : g.outputs()) ++readers[root[o.node]];

  auto output_bytes = [&](NodeId id) {
    double b = 0;
    for (TensorDesc const& d : g[id].outputs) b += static_cast<double>(bytes(d));
    return b;
  };
  MemoryFootprint f;
  double live = 0;
  for (NodeId id : order) {
    auto const& n = g[id];
    if (storage[id] == Storage::resident || storage[id] == Storage::allocated) {
      for (std::size_t p = 0; p < n.outputs.size(); ++p) {
        double b = static_cast<double>(bytes(n.outputs[p]));
        if (b > f.largest_bytes) f.largest_bytes = b, f.largest = Value{id, static_cast<std::uint32_t>(p)};
      }
      double b = output_bytes(id);
      live += b;
      if (storage[id] == Storage::resident) f.resident_bytes += b;
    }
    if (live > f.peak_bytes) f.peak_bytes = live, f.peak_node = id;
    for (Value v : n.inputs) {
      NodeId r = root[v.node];
      if (--readers[r] == 0 && storage[r] == Storage::allocated) live -= output_bytes(r);
    }
  }
  return f;
}

/// The footprint of `g` on a GPU: weights and inputs are resident; each node that launches a
/// kernel (`launches(id)`) writes its outputs; the rest (views, constant-folded weight
/// transforms, empty tensors) take no memory of their own: a folded result counts as the
/// weights it replaces.
template <class Set, class Launches>
MemoryFootprint device_footprint(Graph<Set> const& g, Launches launches) {
  auto order = topological_order(g);
  return memory_footprint(
      g, order,
      [&](NodeId id) {
        if (g[id].op.is_source()) return Storage::resident;
        return launches(id) ? Storage::allocated : Storage::view;
      },
      [](TensorDesc const& d) { return d.bytes(); });
}
template <class Set>
MemoryFootprint device_footprint(Graph<Set> const& g) {
  auto kernel = kernel_mask(g);
  return device_footprint(g, [&](NodeId id) { return kernel[id] != 0; });
}

/// "120000000000 bytes (111.8 GiB)".
inline std::string format_bytes(double bytes) {
  char gib[32];
  std::snprintf(gib, sizeof gib, "%.1f GiB", bytes / 1073741824.0);
  return std::to_string(static_cast<long long>(std::llround(bytes))) + " bytes (" + gib + ")";
}

/// "Conv2D 'conv1' output [1,64,100000,100000] f32, 2560000000000 bytes (2384.2 GiB)".
template <class Set>
std::string describe_tensor(Graph<Set> const& g, Value v, double bytes) {
  TensorDesc const& d = g.desc(v);
  return g.label(v.node) + (g[v.node].outputs.size() > 1 ? " output " + std::to_string(v.port) : " output") + " " +
         d.shape.to_string() + " " + std::string(to_string(d.dtype)) + ", " + format_bytes(bytes);
}

/// Why footprint `f` of graph `g` exceeds `capacity_bytes` of `where` ("the H100 SXM"),
/// naming the largest tensor (node, op, shape, bytes) and the capacity; "" when it fits or the
/// capacity is unknown (0).
template <class Set>
std::string footprint_excess(Graph<Set> const& g, MemoryFootprint const& f, double capacity_bytes, std::string const& where) {
  if (capacity_bytes <= 0 || f.peak_bytes <= capacity_bytes) return "";
  std::string largest = f.largest.node == no_node ? "" : describe_tensor(g, f.largest, f.largest_bytes);
  std::string msg = "the graph does not fit in " + where + "'s memory of " + format_bytes(capacity_bytes) + ": ";
  if (f.largest_bytes > capacity_bytes)
    msg += "its largest tensor alone, " + largest + ", exceeds it";
  else
    msg += "run one node at a time it holds " + format_bytes(f.peak_bytes) + " at once (" + format_bytes(f.resident_bytes) +
           " resident) after " + g.label(f.peak_node) + "; its largest tensor is " + largest;
  return msg;
}

/// Throws Error when `f`, the device_footprint() of `g`, exceeds `device`'s memory (see
/// footprint_excess()); nothing is checked for a device whose memory is unknown (memory_gib 0).
template <class Set>
void check_fits(Graph<Set> const& g, MemoryFootprint const& f, DeviceSpec const& device) {
  if (auto why = footprint_excess(g, f, device.memory_bytes(), "the " + std::string(device.name)); !why.empty()) throw Error(why);
}
template <class Set>
void check_fits(Graph<Set> const& g, DeviceSpec const& device) {
  if (device.memory_bytes() > 0) check_fits(g, device_footprint(g), device);
}

}  // namespace autograph
