#pragma once
// ChannelMergeable: an operator whose output channels come from its weights' channels, so that
// sibling ops reading one input merge into a single op over concatenated weights whose output is
// split again (Conv2D along output channels, MatMul along columns — BERT's Q/K/V projections).
// Opt in by specialising ChannelMerge<YourOp>; the generic merge rules then apply to your op
// too (examples/custom_rule.cpp). Input 0 is the shared data input; every other input carries
// output channels along channel_axis(input, shape) (a weight, a bias).
//
// InputChannelMergeable adds the input-channel form: op(concat(x1, x2), concat(w1, w2)) equals
// op(x1, w1) + op(x2, w2) when the op sums over its input channels (Conv2D, MatMul).
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/ops/any_op.hpp"
#include "autograph/ops/conv2d.hpp"
#include "autograph/ops/matmul.hpp"

namespace autograph::rules {

/// Specialise with:
///   static bool mergeable(Op const& a, Op const& b);          // same op but for output channels
///   static std::int64_t output_axis(Shape const& y);          // the output's channel axis
///   static std::int64_t channel_axis(std::size_t input, Shape const& s);  // inputs >= 1
/// and, for the input-channel form,
///   static std::int64_t input_axis(Shape const& x);           // channels of input 0 summed over
///   static std::int64_t weight_input_axis(Shape const& w);    // the same channels in input 1
///   static bool input_mergeable(Op const& a, Op const& b);
template <class Op>
struct ChannelMerge;

template <class Op>
concept ChannelMergeable = Operator<Op> && requires(Op const& a, Shape const& s, std::size_t i) {
  { ChannelMerge<Op>::mergeable(a, a) } -> std::convertible_to<bool>;
  { ChannelMerge<Op>::output_axis(s) } -> std::convertible_to<std::int64_t>;
  { ChannelMerge<Op>::channel_axis(i, s) } -> std::convertible_to<std::int64_t>;
};

template <class Op>
concept InputChannelMergeable = ChannelMergeable<Op> && requires(Op const& a, Shape const& s) {
  { ChannelMerge<Op>::input_axis(s) } -> std::convertible_to<std::int64_t>;
  { ChannelMerge<Op>::weight_input_axis(s) } -> std::convertible_to<std::int64_t>;
  { ChannelMerge<Op>::input_mergeable(a, a) } -> std::convertible_to<bool>;
};

template <>
struct ChannelMerge<Conv2D> {
  // Grouped convs do not merge this way: group g of the merged conv would mix both kernels.
  static bool mergeable(Conv2D const& a, Conv2D const& b) { return a == b && a.groups == 1; }
  static std::int64_t output_axis(Shape const&) { return 1; }
  static std::int64_t channel_axis(std::size_t, Shape const&) { return 0; }  // w[K,...], bias[K]
  static std::int64_t input_axis(Shape const&) { return 1; }
  static std::int64_t weight_input_axis(Shape const&) { return 1; }
  static bool input_mergeable(Conv2D const& a, Conv2D const& b) { return a == b && a.groups == 1 && a.act == Activation::none; }
};

template <>
struct ChannelMerge<MatMul> {
  static bool mergeable(MatMul const& a, MatMul const& b) { return a == b; }
  static std::int64_t output_axis(Shape const& y) { return static_cast<std::int64_t>(y.rank()) - 1; }
  static std::int64_t channel_axis(std::size_t, Shape const& b) { return static_cast<std::int64_t>(b.rank()) - 1; }
  static std::int64_t input_axis(Shape const& a) { return static_cast<std::int64_t>(a.rank()) - 1; }
  static std::int64_t weight_input_axis(Shape const& b) { return static_cast<std::int64_t>(b.rank()) - 2; }
  static bool input_mergeable(MatMul const& a, MatMul const& b) { return a == b && a.act == Activation::none; }
};

/// ChannelMerge<Op> behind a type-erased table, one entry per mergeable op type of a set.
struct ChannelMergeEntry {
  void const* type;
  bool (*mergeable)(AnyOp const&, AnyOp const&);
  std::int64_t (*output_axis)(Shape const&);
  std::int64_t (*channel_axis)(std::size_t, Shape const&);
  bool (*input_mergeable)(AnyOp const&, AnyOp const&);  // null without the input-channel form
  std::int64_t (*input_axis)(Shape const&);
  std::int64_t (*weight_input_axis)(Shape const&);
};

namespace detail {
template <class Op>
ChannelMergeEntry channel_merge_entry() {
  using T = ChannelMerge<Op>;
  ChannelMergeEntry e{AnyOp::type_id_of<Op>(),
                      [](AnyOp const& a, AnyOp const& b) { return a.is<Op>() && b.is<Op>() && T::mergeable(*a.get_if<Op>(), *b.get_if<Op>()); },
                      [](Shape const& s) { return static_cast<std::int64_t>(T::output_axis(s)); },
                      [](std::size_t i, Shape const& s) { return static_cast<std::int64_t>(T::channel_axis(i, s)); },
                      nullptr, nullptr, nullptr};
  if constexpr (InputChannelMergeable<Op>) {
    e.input_mergeable = [](AnyOp const& a, AnyOp const& b) {
      return a.is<Op>() && b.is<Op>() && T::input_mergeable(*a.get_if<Op>(), *b.get_if<Op>());
    };
    e.input_axis = [](Shape const& s) { return static_cast<std::int64_t>(T::input_axis(s)); };
    e.weight_input_axis = [](Shape const& s) { return static_cast<std::int64_t>(T::weight_input_axis(s)); };
  }
  return e;
}
template <class... Ops>
std::vector<ChannelMergeEntry> channel_merge_entries(OpSet<Ops...>*) {
  std::vector<ChannelMergeEntry> r;
  (
      [&] {
        if constexpr (ChannelMergeable<Ops>) r.push_back(channel_merge_entry<Ops>());
      }(),
      ...);
  return r;
}
}  // namespace detail

/// The ChannelMergeable operator types of `Set` and how each merges.
template <class Set>
struct ChannelMergeTable {
  std::vector<ChannelMergeEntry> entries;
  std::vector<void const*> types, input_types;

  static ChannelMergeTable const& get() {
    static ChannelMergeTable const t = [] {
      ChannelMergeTable t;
      t.entries = detail::channel_merge_entries(static_cast<Set*>(nullptr));
      for (auto const& e : t.entries) {
        t.types.push_back(e.type);
        if (e.input_mergeable) t.input_types.push_back(e.type);
      }
      return t;
    }();
    return t;
  }
  ChannelMergeEntry const* find(void const* type) const {
    auto it = std::ranges::find(entries, type, &ChannelMergeEntry::type);
    return it == entries.end() ? nullptr : &*it;
  }
};

}  // namespace autograph::rules
