#pragma once
// Random concrete instances of a TASO rule's source, for numerical verification. Ranks come
// first (conv: 4-D, matmul: 2-D as TASO generated them, concat: its numdim; elementwise ops,
// relu, concat and split share their operands' rank), then shapes op by op in source order:
// each op fills in the operands not yet known so that its own constraints hold (a conv weight
// gets the input's channels, an elementwise operand the other's shape). Constraints only the
// target imposes are met by chance over retries (TasoRule::example).
#include <numeric>
#include <optional>

#include "autograph/rules/library/common.hpp"
#include "autograph/rules/taso_rule.hpp"

namespace autograph::rules {

template <class Set>
std::optional<Graph<Set>> TasoRule<Set>::random_source(std::mt19937_64& rng) const {
  auto pick = [&](std::initializer_list<std::int64_t> v) { return detail::pick(rng, v); };
  // Value keys: variables -1, -2, ...; op outputs src: 1000 + 10*op + ts, dst: 100000 + 10*op + ts.
  auto key = [](TasoTensorRef t, bool src) { return t.op < 0 ? t.op : (src ? 1000 : 100000) + 10 * t.op + t.ts; };
  std::map<int, int> parent;
  auto find = [&](int x) {
    parent.try_emplace(x, x);
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::map<int, std::size_t> rank;  // by class representative
  auto unite = [&](int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[a] = b;
  };
  std::vector<std::pair<int, std::size_t>> fixed;
  for (bool src : {true, false}) {
    auto const& ops = src ? data_.src : data_.dst;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      auto const& op = ops[i];
      int out0 = key({static_cast<int>(i), 0}, src);
      auto type = static_cast<TasoOpType>(op.type);
      if (type == TasoOpType::conv2d || type == TasoOpType::matmul) {
        std::size_t r = type == TasoOpType::conv2d ? 4 : 2;
        for (auto t : op.inputs) fixed.emplace_back(key(t, src), r);
        fixed.emplace_back(out0, r);
      } else {
        for (auto t : op.inputs) unite(key(t, src), out0);
        int outs = type == TasoOpType::split ? op.param(TasoParam::num_outputs) : 1;
        for (int k = 1; k < outs; ++k) unite(key({static_cast<int>(i), k}, src), out0);
        if (type == TasoOpType::concat) fixed.emplace_back(out0, static_cast<std::size_t>(op.param(TasoParam::numdim)));
      }
    }
  }
  for (auto [k, r] : fixed) {
    auto [it, fresh] = rank.try_emplace(find(k), r);
    if (!fresh && it->second != r) return std::nullopt;  // the rule mixes ranks: cannot happen in TASO's file
  }
  auto rank_of = [&](int k) {
    auto it = rank.find(find(k));
    return it == rank.end() ? std::size_t{2} : it->second;
  };
  std::array<std::int64_t, 2> kernel{3, 3};
  if (options_.any_kernel_size) {
    static constexpr std::array<std::array<std::int64_t, 2>, 5> kernels{{{1, 1}, {3, 3}, {5, 5}, {1, 3}, {3, 1}}};
    kernel = kernels[static_cast<std::size_t>(pick({0, 1, 2, 3, 4}))];
  }
  auto random_shape = [&](std::size_t r) {
    if (r == 4) return Shape{pick({1, 2}), pick({2, 3, 4}), pick({3, 4, 5}), pick({3, 5})};
    std::vector<std::int64_t> d(r);
    for (auto& x : d) x = pick({2, 3, 4});
    return Shape(d);
  };

  std::map<int, Shape> var_shape;
  // A fresh shape of rank r, often one already chosen: rules that only hold when two operands
  // agree (concat(a, b) + concat(c, d) with a ~ c) need such coincidences.
  auto fresh_shape = [&](std::size_t r) {
    std::vector<Shape> same;
    for (auto const& [v, s] : var_shape)
      if (s.rank() == r) same.push_back(s);
    if (!same.empty() && detail::coin(rng)) return same[static_cast<std::size_t>(rng() % same.size())];
    return random_shape(r);
  };
  std::vector<std::vector<TensorDesc>> out(data_.src.size());
  auto known = [&](TasoTensorRef t) -> std::optional<Shape> {
    if (t.op >= 0) return out[static_cast<std::size_t>(t.op)][static_cast<std::size_t>(t.ts)].shape;
    auto it = var_shape.find(t.op);
    return it == var_shape.end() ? std::nullopt : std::optional<Shape>(it->second);
  };
  for (std::size_t i = 0; i < data_.src.size(); ++i) {
    auto const& op = data_.src[i];
    auto type = static_cast<TasoOpType>(op.type);
    auto const& ins = op.inputs;
    auto set = [&](std::size_t j, Shape s) {
      if (ins[j].op < 0 && !known(ins[j])) var_shape[ins[j].op] = s;
    };
    auto get = [&](std::size_t j) { return known(ins[j]); };
    switch (type) {
      case TasoOpType::conv2d:
        if (!get(0)) {
          Shape x = random_shape(4);
          if (auto w = get(1)) x[1] = (*w)[1];
          set(0, x);
        }
        if (!get(1)) set(1, Shape{pick({2, 3, 4}), (*get(0))[1], kernel[0], kernel[1]});
        break;
      case TasoOpType::matmul:
        if (!get(0)) set(0, Shape{pick({2, 3, 4}), get(1) ? (*get(1))[0] : pick({2, 3, 4})});
        if (!get(1)) set(1, Shape{(*get(0))[1], pick({2, 3, 4})});
        break;
      case TasoOpType::concat: {
        std::size_t axis = static_cast<std::size_t>(op.param(TasoParam::axis));
        std::optional<Shape> base;
        for (std::size_t j = 0; j < ins.size() && !base; ++j) base = get(j);
        if (!base) base = fresh_shape(rank_of(key(ins[0], true)));
        for (std::size_t j = 0; j < ins.size(); ++j) {
          Shape s = *base;
          if (axis < s.rank() && detail::coin(rng)) s[axis] = pick({1, 2, 3});
          set(j, s);
        }
        break;
      }
      default: {  // relu, ew_add, ew_mul, split
        std::optional<Shape> base;
        for (std::size_t j = 0; j < ins.size() && !base; ++j) base = get(j);
        if (!base) base = fresh_shape(rank_of(key(ins[0], true)));
        for (std::size_t j = 0; j < ins.size(); ++j) set(j, *base);
      }
    }
    std::vector<TensorDesc> in;
    for (std::size_t j = 0; j < ins.size(); ++j) in.push_back({*get(j), DType::float32});
    try {
      out[i] = detail::taso_operator(op, in).infer(in);
    } catch (ShapeError const&) {
      return std::nullopt;
    } catch (Error const&) {
      return std::nullopt;  // a split in a source: not in TASO's file
    }
  }

  Graph<Set> g;
  std::map<int, Value> vars;
  for (int v : vars_) vars[v] = {g.add(AnyOp(Input{{var_shape.at(v), DType::float32}, "v" + std::to_string(-v)}), std::span<Value const>{}), 0};
  std::vector<NodeId> ids;
  try {
    for (auto const& op : data_.src) {
      std::vector<Value> in;
      std::vector<TensorDesc> descs;
      for (auto t : op.inputs) {
        in.push_back(t.op < 0 ? vars[t.op] : Value{ids[static_cast<std::size_t>(t.op)], static_cast<std::uint32_t>(t.ts)});
        descs.push_back(g.desc(in.back()));
      }
      ids.push_back(g.add(detail::taso_operator(op, descs), in));
    }
  } catch (ShapeError const&) {
    return std::nullopt;
  }
  std::vector<Value> outputs;
  for (auto const& mo : data_.mapped) outputs.push_back({ids[static_cast<std::size_t>(mo.src_op)], static_cast<std::uint32_t>(mo.src_ts)});
  g.set_outputs(outputs);
  return g;
}

}  // namespace autograph::rules
