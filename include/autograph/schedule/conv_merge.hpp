#pragma once
// IOS's operator merge: convolutions that read the identical input with the same stride,
// dilation 1, groups = 1 and the same fused activation become one convolution — each kernel
// zero-padded (Enlarge) to the largest, the kernels concatenated along the output channels —
// followed by a Split that hands each original reader its channels.
//
// Zero-padding a k-kernel by (K - k) / 2 on each side and its padding by the same amount
// leaves every output unchanged, so the merged convolution must see one padding: the
// convolutions' paddings, each grown by its kernel's half-difference, have to agree.
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/ops/builtin.hpp"

namespace autograph {

struct ConvMergePlan {
  Conv2D op;                           // the merged convolution's attributes
  std::array<std::int64_t, 2> kernel;  // the merged kernel's spatial size
  std::vector<std::int64_t> out_channels;
  bool bias = false;
};

/// The merged convolution for `convs`, or nullopt when they cannot be merged.
/// `constant[id]` marks nodes folded at load time (weights must be, or the merge would add
/// kernels instead of removing them).
template <class Set>
std::optional<ConvMergePlan> plan_conv_merge(Graph<Set> const& g, std::span<NodeId const> convs, std::vector<char> const& constant) {
  if (convs.size() < 2) return std::nullopt;
  Conv2D const* first = g[convs[0]].template get_if<Conv2D>();
  if (!first) return std::nullopt;
  Value x = g[convs[0]].inputs[0];
  ConvMergePlan plan{*first, {0, 0}, {}, g[convs[0]].inputs.size() == 3};
  for (NodeId id : convs) {
    auto const* c = g[id].template get_if<Conv2D>();
    auto const& n = g[id];
    if (!c || n.inputs[0] != x || c->groups != 1 || c->stride != first->stride || c->dilation != std::array<std::int64_t, 2>{1, 1} ||
        c->act != first->act || (n.inputs.size() == 3) != plan.bias)
      return std::nullopt;
    for (std::size_t i = 1; i < n.inputs.size(); ++i)
      if (!constant[n.inputs[i].node]) return std::nullopt;
    if (g.desc(n.inputs[1]).dtype != g.desc(g[convs[0]].inputs[1]).dtype) return std::nullopt;
    auto const& w = g.desc(n.inputs[1]).shape;
    plan.kernel = {std::max(plan.kernel[0], w[2]), std::max(plan.kernel[1], w[3])};
    plan.out_channels.push_back(w[0]);
  }
  std::optional<std::array<std::int64_t, 4>> pad;
  for (NodeId id : convs) {
    auto const& c = *g[id].template get_if<Conv2D>();
    auto const& w = g.desc(g[id].inputs[1]).shape;
    std::int64_t dh = plan.kernel[0] - w[2], dw = plan.kernel[1] - w[3];
    if (dh % 2 != 0 || dw % 2 != 0) return std::nullopt;
    std::array<std::int64_t, 4> p{c.pad[0] + dh / 2, c.pad[1] + dw / 2, c.pad[2] + dh / 2, c.pad[3] + dw / 2};
    if (pad && *pad != p) return std::nullopt;
    pad = p;
  }
  plan.op.pad = *pad;
  plan.op.groups = 1;
  return plan;
}

/// Replaces `convs` by one merged convolution and a Split; returns {merged conv, split}.
/// @pre plan == plan_conv_merge(g, convs, ...).
template <class Set>
std::array<NodeId, 2> merge_convs(Graph<Set>& g, std::span<NodeId const> convs, ConvMergePlan const& plan) {
  Value x = g[convs[0]].inputs[0];
  std::string base = g[convs[0]].name.empty() ? "conv" : g[convs[0]].name;
  std::vector<Value> kernels, biases;
  for (NodeId id : convs) {
    Value w = g[id].inputs[1];
    auto const& s = g.desc(w).shape;
    if (s[2] != plan.kernel[0] || s[3] != plan.kernel[1])
      w = {g.add(Enlarge{plan.kernel}, std::initializer_list<Value>{w}, g[id].name + ".enlarged"), 0};
    kernels.push_back(w);
    if (plan.bias) biases.push_back(g[id].inputs[2]);
  }
  Value w{g.add(Concat{0}, std::span<Value const>(kernels), base + ".merged_weight"), 0};
  std::vector<Value> in{x, w};
  if (plan.bias) in.push_back({g.add(Concat{0}, std::span<Value const>(biases), base + ".merged_bias"), 0});
  NodeId conv = g.add(plan.op, std::span<Value const>(in), base + ".merged");
  NodeId split = g.add(Split{1, plan.out_channels}, std::initializer_list<Value>{Value{conv, 0}}, base + ".merged_split");
  for (std::uint32_t i = 0; i < convs.size(); ++i) {
    g.replace_uses({convs[i], 0}, {split, i});
    g.remove(convs[i]);
  }
  return {conv, split};
}

}  // namespace autograph
