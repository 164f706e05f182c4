#pragma once
// TasoRule: one rule of TASO's generated collection (graph_subst.pb), held as data. Every rule of
// the file is one value of this one type, modelling the same Rule concept as the built-in rule
// types — the source becomes a Pattern for the shared matcher; the target is built op by op at
// apply time. A rule file of any size costs no template instantiations.
//
// How TASO's operators map (decisions, each tested in test/rules/taso_test.cpp):
//  - conv2d: Conv2D with two inputs (no bias), no dilation, the file's stride, padding mode and
//    activation. TASO infers groups from the operands (input channels / weight input channels),
//    so a target conv over concatenated inputs and weights is grouped; a source conv matches
//    only ungrouped convs (concatenating the weights of grouped convs would mix their groups). TASO generated every conv rule with 3x3 kernels, and its own loader
//    ignores the kernel size. So do we by default (TasoOptions::any_kernel_size): the rules are
//    kernel-agnostic, and `autograph verify-rules --taso` checks them on 1x1, 3x3, 5x5, 1x3 and
//    3x1 kernels. any_kernel_size = false keeps them to 3x3 kernels.
//  - "same" padding is TASO's: total = max((ceil(H / s) - 1) * s + k - H, 0), top = total / 2.
//  - ew_add / ew_mul: Add / Mul without broadcasting (TASO's elementwise ops take equal shapes,
//    and its rules were verified under that axiom).
//  - split in a target carries no sizes: like TASO, each value built by the target remembers
//    where concats joined it along each axis (SplitInfo), and a split cuts at the last join.
#include <algorithm>
#include <array>
#include <map>
#include <random>
#include <ranges>
#include <string>
#include <vector>

#include "autograph/rules/rule.hpp"

namespace autograph::rules {

/// TASO's operator type numbers that occur in rule files this loader reads.
enum class TasoOpType : int { conv2d = 3, relu = 8, concat = 12, split = 13, ew_add = 16, ew_mul = 17, matmul = 18 };
/// TASO's parameter keys.
enum class TasoParam : int { num_inputs = 1, num_outputs = 2, group = 3, kernel_h = 4, kernel_w = 5, stride_h = 6, stride_w = 7, pad = 8, activation = 9, numdim = 10, axis = 11 };

struct TasoTensorRef {
  int op = 0;  // >= 0: an op on the same side; < 0: an external variable
  int ts = 0;
};
struct TasoOp {
  int type = 0;
  std::vector<TasoTensorRef> inputs;
  std::vector<std::pair<int, int>> params;
  bool has(TasoParam k) const {
    return std::ranges::any_of(params, [k](auto const& p) { return p.first == static_cast<int>(k); });
  }
  int param(TasoParam k) const {
    for (auto const& [key, value] : params)
      if (key == static_cast<int>(k)) return value;
    throw Error("TASO op type " + std::to_string(type) + " lacks parameter " + std::to_string(static_cast<int>(k)));
  }
};
struct TasoMapOutput {
  int src_op = 0, dst_op = 0, src_ts = 0, dst_ts = 0;
};
struct TasoRuleData {
  std::vector<TasoOp> src, dst;
  std::vector<TasoMapOutput> mapped;
};

struct TasoOptions {
  /// Fire on any kernel size, as TASO's loader does (default), or on 3x3 kernels only.
  bool any_kernel_size = true;
  /// A target conv over concatenated operands is grouped (TASO infers groups from shapes), which
  /// is only right when the concat joins fall on group boundaries: conv(concat(x1, x2),
  /// concat(w1, w2)) with w1 [K1,..], w2 [K2,..] computes the two convs only when K1 == K2.
  /// TASO does not check this (rules 99, 100, 130 and 131 of its file are wrong for K1 != K2);
  /// true (default) rejects such rewrites, false applies the rules as TASO does.
  bool aligned_groups = true;
};

namespace detail {

/// TASO's padding for a mode (0 same, 1 valid) along one axis: {before, after}.
inline std::array<std::int64_t, 2> taso_pad(int mode, std::int64_t in, std::int64_t k, std::int64_t s) {
  if (mode != 0) return {0, 0};
  std::int64_t out = (in + s - 1) / s;
  std::int64_t total = std::max<std::int64_t>((out - 1) * s + k - in, 0);
  return {total / 2, total - total / 2};
}

inline Activation taso_activation(int code) {
  switch (code) {
    case 0: return Activation::none;
    case 1: return Activation::sigmoid;
    case 2: return Activation::relu;
    case 3: return Activation::tanh;
  }
  throw Error("TASO activation code " + std::to_string(code) + " is unknown");
}

/// Where concats joined a value along one axis; the last entry is the outermost join (TASO's
/// SplitInfo: merge appends the right part's joins shifted, then the join itself).
struct SplitInfo {
  std::vector<std::int64_t> pos;
  static SplitInfo merge(SplitInfo const& left, std::int64_t offset, SplitInfo const& right) {
    SplitInfo r = left;
    for (auto p : right.pos) r.pos.push_back(offset + p);
    r.pos.push_back(offset);
    return r;
  }
  friend bool operator==(SplitInfo const&, SplitInfo const&) = default;
};
using SplitInfos = std::vector<SplitInfo>;  // one per axis

/// The operator a TASO op denotes, given its input descriptors (conv padding depends on them).
inline AnyOp taso_operator(TasoOp const& op, std::span<TensorDesc const> in) {
  switch (static_cast<TasoOpType>(op.type)) {
    case TasoOpType::conv2d: {
      if (in.size() != 2 || in[0].shape.rank() != 4 || in[1].shape.rank() != 4) throw ShapeError("TASO conv2d takes a 4-D input and a 4-D weight");
      std::int64_t sh = op.param(TasoParam::stride_h), sw = op.param(TasoParam::stride_w);
      int mode = op.param(TasoParam::pad);
      auto ph = taso_pad(mode, in[0].shape[2], in[1].shape[2], sh);
      auto pw = taso_pad(mode, in[0].shape[3], in[1].shape[3], sw);
      // TASO infers a conv's groups from its operands (input channels / weight input channels):
      // a target conv over concatenated inputs and weights is a grouped conv.
      std::int64_t c = in[0].shape[1], cw = in[1].shape[1];
      if (cw <= 0 || c % cw != 0) throw ShapeError("TASO conv2d: input channels are not a multiple of the weight's");
      return Conv2D{{sh, sw}, {ph[0], pw[0], ph[1], pw[1]}, {1, 1}, c / cw, taso_activation(op.param(TasoParam::activation))};
    }
    case TasoOpType::relu: return Relu{};
    case TasoOpType::concat: return Concat{op.param(TasoParam::axis)};
    case TasoOpType::split: throw Error("TASO split needs sizes; built by the rule");
    case TasoOpType::ew_add: return Add{};
    case TasoOpType::ew_mul: return Mul{};
    case TasoOpType::matmul: return MatMul{taso_activation(op.param(TasoParam::activation))};
  }
  throw Error("TASO op type " + std::to_string(op.type) + " is not supported");
}

inline char const* taso_op_name(int type) {
  switch (static_cast<TasoOpType>(type)) {
    case TasoOpType::conv2d: return "conv2d";
    case TasoOpType::relu: return "relu";
    case TasoOpType::concat: return "concat";
    case TasoOpType::split: return "split";
    case TasoOpType::ew_add: return "ew_add";
    case TasoOpType::ew_mul: return "ew_mul";
    case TasoOpType::matmul: return "matmul";
  }
  return "unsupported";
}

}  // namespace detail

template <class Set = BuiltinOps>
class TasoRule {
 public:
  /// @throws Error naming the rule and the op when the rule uses an operator this loader does not map.
  TasoRule(std::string name, TasoRuleData data, TasoOptions options = {}) : name_(std::move(name)), data_(std::move(data)), options_(options) {
    pattern_ = build_pattern();
  }

  std::string_view name() const { return name_; }
  TasoRuleData const& data() const { return data_; }
  TasoOptions const& options() const { return options_; }
  Pattern<Set> const& pattern() const { return pattern_; }
  /// A one-line summary: "conv2d(v0, v1); relu(op0) => conv2d(v0, v1)".
  std::string describe() const { return side(data_.src) + " => " + side(data_.dst); }

  template <class S>
  std::span<void const* const> roots() const {
    static_assert(std::is_same_v<S, Set>, "a TasoRule<Set> matches graphs of its own operator set");
    return pattern_.nodes[pattern_.root].types;
  }
  template <class S>
  void match(MatchIndex<S> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) const {
    match_pattern(pattern_, idx, root, sink, why);
  }

  template <class S>
  Target apply(Rewriter<S>& rw, Match const& m) const {
    static_assert(std::is_same_v<S, Set>, "a TasoRule<Set> rewrites graphs of its own operator set");
    return build_target(rw, m);
  }

  /// A random graph that is this rule's source over fresh inputs, with shapes that make both
  /// sides well-formed; conv kernels vary (1x1, 3x3, 5x5, 1x3, 3x1) unless any_kernel_size is off.
  /// @throws Error when no random shapes satisfy both sides.
  template <class S>
  Graph<S> example(std::mt19937_64& rng) const {
    static_assert(std::is_same_v<S, Set>, "a TasoRule<Set> makes graphs of its own operator set");
    return random_example(rng);
  }

 private:
  std::uint32_t var_index(int id) const {
    auto it = std::ranges::find(vars_, id);
    return static_cast<std::uint32_t>(it - vars_.begin());
  }

  static std::string side(std::vector<TasoOp> const& ops) {
    std::string s;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      s += (i ? "; " : "") + std::string(detail::taso_op_name(ops[i].type)) + "(";
      for (std::size_t j = 0; j < ops[i].inputs.size(); ++j) {
        auto t = ops[i].inputs[j];
        s += (j ? ", " : "") + (t.op < 0 ? "v" + std::to_string(-t.op) : "op" + std::to_string(t.op) + (t.ts ? "." + std::to_string(t.ts) : ""));
      }
      s += ")";
      if (ops[i].has(TasoParam::axis)) s += "[axis " + std::to_string(ops[i].param(TasoParam::axis)) + "]";
      if (ops[i].has(TasoParam::activation) && ops[i].param(TasoParam::activation) != 0) s += "[act " + std::to_string(ops[i].param(TasoParam::activation)) + "]";
    }
    return s;
  }

  /// Constraints a target op puts on its inputs beyond shape inference.
  static Status taso_side_check(TasoOp const& op, std::span<TensorDesc const> in) {
    auto type = static_cast<TasoOpType>(op.type);
    if ((type == TasoOpType::ew_add || type == TasoOpType::ew_mul) && in[0] != in[1]) return no_match("TASO elementwise ops take equal shapes");
    if (type == TasoOpType::concat && static_cast<int>(in[0].shape.rank()) != op.param(TasoParam::numdim)) return no_match("the concat's rank differs from the rule's");
    return ok;
  }

  template <class B>
  static detail::SplitInfos propagate(TasoOp const& op, std::vector<B> const& in, std::span<TensorDesc const> descs, std::size_t rank) {
    detail::SplitInfos r(rank);
    switch (static_cast<TasoOpType>(op.type)) {
      case TasoOpType::conv2d:  // batch from the input, output channels from the weight
        r[0] = in[0].split[0];
        r[1] = in[1].split[0];
        break;
      case TasoOpType::matmul:
        if (rank >= 2 && in[0].split.size() == rank && in[1].split.size() >= 2) {
          r[rank - 2] = in[0].split[rank - 2];
          r[rank - 1] = in[1].split[in[1].split.size() - 1];
        }
        break;
      case TasoOpType::concat: {
        std::size_t axis = descs[0].shape.normalize_axis(op.param(TasoParam::axis));
        for (std::size_t d = 0; d < rank; ++d) {
          if (d == axis) continue;
          bool same = std::ranges::all_of(in, [&](auto const& b) { return b.split[d] == in[0].split[d]; });
          if (same) r[d] = in[0].split[d];
        }
        r[axis] = in[0].split[axis];
        std::int64_t offset = descs[0].shape[axis];
        for (std::size_t k = 1; k < in.size(); ++k) {
          r[axis] = detail::SplitInfo::merge(r[axis], offset, in[k].split[axis]);
          offset += descs[k].shape[axis];
        }
        break;
      }
      default:  // relu, elementwise: joins both operands agree on
        for (std::size_t d = 0; d < rank; ++d) {
          bool same = std::ranges::all_of(in, [&](auto const& b) { return b.split[d] == in[0].split[d]; });
          if (same) r[d] = in[0].split[d];
        }
    }
    return r;
  }

  Pattern<Set> build_pattern();

  /// What a target op that reads variables directly requires of them, checked when the match is
  /// found rather than when the rewrite fails (TASO builds the target while matching): a concat
  /// of variables needs their rank to be its numdim and their other dimensions equal, an
  /// elementwise op equal shapes. Pairs of unrelated ops (rules 70, 81, 95, 120 pair any two
  /// relus) would otherwise report every pair of the graph.
  void add_target_checks(PatternBuilder<Set>& p) const;

  Operand add_source_node(PatternBuilder<Set>& p, TasoOp const& op, std::vector<Operand> const& ins);

  /// Shapes for the variables, sampled op by op so that each op's constraints hold; nullopt
  /// when a sample contradicts itself.
  std::optional<Graph<Set>> random_source(std::mt19937_64& rng) const;
  Target build_target(Rewriter<Set>& rw, Match const& m) const;
  Graph<Set> random_example(std::mt19937_64& rng) const;

  std::string name_;
  TasoRuleData data_;
  TasoOptions options_;
  std::vector<int> vars_;  // TASO variable ids, in order of first use
  Pattern<Set> pattern_;
};

// The members with bodies of any size are defined outside the class so that the `extern
// template` below holds at -O2 (see rules/engine.hpp).

template <class Set>
Target TasoRule<Set>::build_target(Rewriter<Set>& rw, Match const& m) const {
  auto const& g = rw.graph();
  struct Built {
    Value v;
    detail::SplitInfos split;
  };
  std::vector<std::vector<Built>> out(data_.dst.size());
  auto input = [&](TasoTensorRef t) -> Built {
    if (t.op < 0) {
      Value v = m.var(var_index(t.op));
      return {v, detail::SplitInfos(g.desc(v).shape.rank())};
    }
    return out[static_cast<std::size_t>(t.op)][static_cast<std::size_t>(t.ts)];
  };
  std::string n = g[m.nodes.back()].name + "/" + name_;
  for (std::size_t i = 0; i < data_.dst.size(); ++i) {
    TasoOp const& op = data_.dst[i];
    std::vector<Built> in;
    std::vector<Value> values;
    std::vector<TensorDesc> descs;
    for (auto t : op.inputs) {
      in.push_back(input(t));
      values.push_back(in.back().v);
      descs.push_back(g.desc(in.back().v));
    }
    std::string nm = n + ".op" + std::to_string(i);
    auto type = static_cast<TasoOpType>(op.type);
    if (type == TasoOpType::split) {
      std::size_t axis = descs[0].shape.normalize_axis(op.param(TasoParam::axis));
      auto const& info = in[0].split[axis].pos;
      if (op.param(TasoParam::num_outputs) != 2) return Target::fail("TASO split into more than two pieces");
      if (info.empty()) return Target::fail("the split's input was not joined by a concat along its axis");
      std::int64_t mid = info.back(), total = descs[0].shape[axis];
      auto pieces = rw.add_multi(Split{static_cast<std::int64_t>(axis), {mid, total - mid}}, values, nm);
      detail::SplitInfo left, right;
      std::size_t k = 0;
      for (; k + 1 < info.size() && info[k] < mid; ++k) left.pos.push_back(info[k]);
      for (; k + 1 < info.size(); ++k) right.pos.push_back(info[k] - mid);
      Built a{pieces[0], in[0].split}, b{pieces[1], in[0].split};
      a.split[axis] = left;
      b.split[axis] = right;
      out[i] = {a, b};
      continue;
    }
    if (Status s = taso_side_check(op, descs); !s) return Target::fail(s.why);
    if (type == TasoOpType::conv2d && options_.aligned_groups && descs[1].shape[1] > 0 && descs[0].shape[1] != descs[1].shape[1]) {
      std::int64_t groups = descs[0].shape[1] / descs[1].shape[1];
      std::int64_t cg = descs[1].shape[1], kg = descs[1].shape[0] / std::max<std::int64_t>(groups, 1);
      auto aligned = [](detail::SplitInfo const& info, std::int64_t unit) {
        return std::ranges::all_of(info.pos, [unit](std::int64_t p) { return unit > 0 && p % unit == 0; });
      };
      if (!aligned(in[0].split[1], cg) || !aligned(in[1].split[0], kg) || in[1].split[0].pos.size() != in[0].split[1].pos.size())
        return Target::fail("the grouped conv's groups do not line up with the concatenated convs (aligned_groups)");
    }
    Value y = rw.add(detail::taso_operator(op, descs), values, nm);
    out[i] = {{y, propagate(op, in, descs, g.desc(y).shape.rank())}};
  }
  // Returned as a prvalue built from a view: a named Target returned here is moved (NRVO
  // does not apply beside the early returns), and moving its small_vector while it sits in
  // the inline buffer makes GCC 12 at -O3 warn a memmove may over-read it — a false report.
  auto mapped = data_.mapped | std::views::transform([&](auto const& mo) {
    return out[static_cast<std::size_t>(mo.dst_op)][static_cast<std::size_t>(mo.dst_ts)].v;
  });
  return Target(mapped);
}

template <class Set>
Graph<Set> TasoRule<Set>::random_example(std::mt19937_64& rng) const {
  for (int attempt = 0; attempt < 400; ++attempt) {
    auto g = random_source(rng);
    if (!g) continue;
    MatchIndex<Set> idx(*g);
    bool applies = false;
    for_each_match(*this, idx, [&](Match const& m) { applies = applies || rewrite(*g, *this, m).has_value(); });
    if (applies) return std::move(*g);
  }
  throw Error(name_ + ": no random shapes made both sides of the rule well-formed");
}

template <class Set>
Pattern<Set> TasoRule<Set>::build_pattern() {
  auto fail = [&](std::string const& why) { throw Error("TASO rule " + name_ + ": " + why); };
  for (auto const* side : {&data_.src, &data_.dst})
    for (auto const& op : *side)
      if (std::string_view(detail::taso_op_name(op.type)) == "unsupported") fail("operator type " + std::to_string(op.type) + " is not supported");
  PatternBuilder<Set> p;
  std::vector<Operand> op_refs;
  for (std::size_t i = 0; i < data_.src.size(); ++i) {
    TasoOp const& op = data_.src[i];
    std::vector<Operand> ins;
    for (auto t : op.inputs) {
      if (t.op < 0) {
        if (std::ranges::find(vars_, t.op) == vars_.end()) {
          vars_.push_back(t.op);
          (void)p.var();
        }
        ins.push_back(Var(var_index(t.op)));
      } else {
        if (static_cast<std::size_t>(t.op) >= i) fail("source op " + std::to_string(i) + " reads a later op");
        ins.push_back(Operand{Operand::Kind::node, static_cast<std::uint32_t>(t.op), static_cast<std::uint32_t>(t.ts)});
      }
    }
    op_refs.push_back(add_source_node(p, op, ins));
  }
  for (auto const& op : data_.dst)
    for (auto t : op.inputs)
      if (t.op < 0 && std::ranges::find(vars_, t.op) == vars_.end()) fail("the target reads a variable the source does not bind");
  add_target_checks(p);
  for (auto const& mo : data_.mapped) {
    if (mo.src_op < 0 || static_cast<std::size_t>(mo.src_op) >= data_.src.size() || mo.dst_op < 0 || static_cast<std::size_t>(mo.dst_op) >= data_.dst.size())
      fail("a mapped output names an op that does not exist");
    p.output(Operand{Operand::Kind::node, static_cast<std::uint32_t>(mo.src_op), static_cast<std::uint32_t>(mo.src_ts)});
  }
  return std::move(p).build();
}

template <class Set>
void TasoRule<Set>::add_target_checks(PatternBuilder<Set>& p) const {
  struct VarCheck {
    std::vector<std::uint32_t> vars;
    std::int64_t axis;  // -1: equal shapes
    std::size_t rank;   // 0: any
  };
  std::vector<VarCheck> checks;
  for (auto const& op : data_.dst) {
    auto type = static_cast<TasoOpType>(op.type);
    bool cat = type == TasoOpType::concat, ew = type == TasoOpType::ew_add || type == TasoOpType::ew_mul;
    if (!cat && !ew) continue;
    VarCheck c{{}, cat ? op.param(TasoParam::axis) : -1, cat ? static_cast<std::size_t>(op.param(TasoParam::numdim)) : 0};
    for (auto t : op.inputs)
      if (t.op < 0) c.vars.push_back(var_index(t.op));
    if (c.vars.size() >= (cat ? 1u : 2u)) checks.push_back(std::move(c));
  }
  if (checks.empty()) return;
  p.check([checks](Graph<Set> const& g, Match const& m) {
    for (auto const& c : checks) {
      Shape const& first = g.desc(m.var(c.vars[0])).shape;
      if (c.rank && first.rank() != c.rank) return no_match("the target's concat has another rank");
      for (std::size_t k = 1; k < c.vars.size(); ++k) {
        Shape const& s = g.desc(m.var(c.vars[k])).shape;
        if (s.rank() != first.rank()) return no_match("the target joins values of different ranks");
        for (std::size_t d = 0; d < s.rank(); ++d)
          if (static_cast<std::int64_t>(d) != c.axis && s[d] != first[d]) return no_match("the target joins values of different shapes");
      }
    }
    return ok;
  });
}

template <class Set>
Operand TasoRule<Set>::add_source_node(PatternBuilder<Set>& p, TasoOp const& op, std::vector<Operand> const& ins) {
  TasoOptions opt = options_;
  auto make = [&]<class O>(OpTag<O> tag) {
    // PatternBuilder takes an initializer_list; TASO ops have one or two inputs (concat: n).
    switch (ins.size()) {
      case 1: return p.op(tag, {ins[0]});
      case 2: return p.op(tag, {ins[0], ins[1]});
      case 3: return p.op(tag, {ins[0], ins[1], ins[2]});
      case 4: return p.op(tag, {ins[0], ins[1], ins[2], ins[3]});
    }
    throw Error("TASO rule " + name_ + ": an op with " + std::to_string(ins.size()) + " inputs");
  };
  switch (static_cast<TasoOpType>(op.type)) {
    case TasoOpType::conv2d: {
      std::array<std::int64_t, 2> stride{op.param(TasoParam::stride_h), op.param(TasoParam::stride_w)};
      int mode = op.param(TasoParam::pad);
      Activation act = detail::taso_activation(op.param(TasoParam::activation));
      std::int64_t kh = op.has(TasoParam::kernel_h) ? op.param(TasoParam::kernel_h) : 0, kw = op.has(TasoParam::kernel_w) ? op.param(TasoParam::kernel_w) : 0;
      return static_cast<Operand>(make(is<Conv2D>).when([=](Graph<Set> const& g, NodeId n) {
        auto const& c = *g[n].op.template get_if<Conv2D>();
        Shape const& x = g.desc(g[n].inputs[0]).shape;
        Shape const& w = g.desc(g[n].inputs[1]).shape;
        if (c.groups != 1 || c.dilation != std::array<std::int64_t, 2>{1, 1}) return no_match("grouped or dilated conv");
        if (c.stride != stride) return no_match("the conv's stride differs from the rule's");
        if (c.act != act) return no_match("the conv's activation differs from the rule's");
        if (!opt.any_kernel_size && (w[2] != kh || w[3] != kw)) return no_match("the kernel size differs from the rule's (any_kernel_size is off)");
        auto ph = detail::taso_pad(mode, x[2], w[2], stride[0]);
        auto pw = detail::taso_pad(mode, x[3], w[3], stride[1]);
        if (c.pad != std::array<std::int64_t, 4>{ph[0], pw[0], ph[1], pw[1]}) return no_match("the conv's padding is not the rule's padding mode");
        return ok;
      }));
    }
    case TasoOpType::relu: return make(is<Relu>);
    case TasoOpType::concat: {
      std::int64_t axis = op.param(TasoParam::axis);
      std::size_t numdim = static_cast<std::size_t>(op.param(TasoParam::numdim));
      return make(is<Concat>).when([=](Graph<Set> const& g, NodeId n) {
        Shape const& y = g[n].outputs[0].shape;
        if (y.rank() != numdim) return no_match("the concat's rank differs from the rule's");
        return static_cast<std::int64_t>(y.normalize_axis(g[n].op.template get_if<Concat>()->axis)) == axis ? ok : no_match("the concat's axis differs");
      });
    }
    case TasoOpType::split: {
      std::int64_t axis = op.param(TasoParam::axis);
      std::size_t outs = static_cast<std::size_t>(op.param(TasoParam::num_outputs));
      return make(is<Split>).when([=](Graph<Set> const& g, NodeId n) {
        Shape const& x = g.desc(g[n].inputs[0]).shape;
        if (g[n].outputs.size() != outs) return no_match("the split has a different number of pieces");
        return static_cast<std::int64_t>(x.normalize_axis(g[n].op.template get_if<Split>()->axis)) == axis ? ok : no_match("the split's axis differs");
      });
    }
    case TasoOpType::ew_add:
    case TasoOpType::ew_mul: {
      auto same_shapes = [](Graph<Set> const& g, NodeId n) {
        return g.desc(g[n].inputs[0]) == g.desc(g[n].inputs[1]) ? ok : no_match("TASO elementwise ops take equal shapes (this one broadcasts)");
      };
      if (static_cast<TasoOpType>(op.type) == TasoOpType::ew_add) return make(is<Add>).when(same_shapes);
      return make(is<Mul>).when(same_shapes);
    }
    case TasoOpType::matmul: {
      Activation act = detail::taso_activation(op.param(TasoParam::activation));
      return make(is<MatMul>).when([=](MatMul const& mm) { return mm.act == act ? ok : no_match("the matmul's activation differs from the rule's"); });
    }
  }
  throw Error("TASO rule " + name_ + ": operator type " + std::to_string(op.type) + " is not supported");
}

}  // namespace autograph::rules

#include "autograph/rules/detail/taso_example.hpp"

#if defined(AUTOGRAPH_PRECOMPILED)
namespace autograph::rules {
extern template class TasoRule<BuiltinOps>;  // src/defaults/rules_taso.cpp
}  // namespace autograph::rules
#endif
