#pragma once
// Matrix products and transposes:
//   (a b) c      => a (b c)        matmul-reassociate-right
//   a (b c)      => (a b) c        matmul-reassociate-left
//   T(T(x))      => T(x) or x      transpose-transpose (perms composed; the identity cancels)
//   T(a b)       => T(b) T(a)      transpose-of-matmul (T swaps the last two axes)
//   T(b) T(a)    => T(a b)         matmul-of-transposes
#include <numeric>

#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

namespace detail {
inline Status plain_matmul(MatMul const& m) { return m.act == Activation::none ? ok : no_match("the inner matmul applies an activation"); }

/// The transpose that swaps the last two of `rank` axes.
inline std::vector<std::int64_t> swap_last_two(std::size_t rank) {
  std::vector<std::int64_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  if (rank >= 2) std::swap(p[rank - 1], p[rank - 2]);
  return p;
}
inline Status swaps_last_two(Transpose const& t) {
  return t.perm.size() >= 2 && t.perm == swap_last_two(t.perm.size()) ? ok : no_match("the transpose does not swap the last two axes");
}
/// Would MatMul accept these shapes and give `out`?
inline bool matmul_gives(TensorDesc const& a, TensorDesc const& b, TensorDesc const& out) {
  try {
    TensorDesc in[] = {a, b};
    return MatMul{}.infer(in)[0] == out;
  } catch (ShapeError const&) {
    return false;
  }
}
inline TensorDesc matmul_desc(TensorDesc const& a, TensorDesc const& b) {
  TensorDesc in[] = {a, b};
  return MatMul{}.infer(in)[0];
}

template <class Set>
Graph<Set> chain_example(std::mt19937_64& rng, bool left_nested) {
  GraphBuilder<Set> b;
  std::int64_t m = pick(rng, {2, 3}), k = pick(rng, {3, 4}), n = pick(rng, {2, 5}), p = pick(rng, {3, 4});
  Shape as = coin(rng) ? Shape{m, k} : Shape{2, m, k};
  auto a = b.input("a", as);
  auto bb = b.weight("b", {k, n}, WeightInit::uniform);
  auto c = b.weight("c", {n, p}, WeightInit::uniform);
  Activation act = coin(rng) ? Activation::relu : Activation::none;
  Value y = left_nested ? b.matmul(b.matmul(a, bb), c, act) : b.matmul(a, b.matmul(bb, c), act);
  return std::move(b).build({y});
}
}  // namespace detail

struct MatMulReassociateRight : PatternRule<MatMulReassociateRight> {
  static constexpr std::string_view name = "matmul-reassociate-right";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var(), c = p.var();
    auto ab = p.op(is<MatMul>, {a, b}).when(detail::plain_matmul);
    auto abc = p.op(is<MatMul>, {ab, c});
    p.output(abc);
    p.check([](Graph<Set> const& g, Match const& m) {
      try {
        TensorDesc bc = detail::matmul_desc(g.desc(m.var(1)), g.desc(m.var(2)));
        return detail::matmul_gives(g.desc(m.var(0)), bc, g[m.node(1)].outputs[0]) ? ok : no_match("the reassociated shapes differ");
      } catch (ShapeError const&) {
        return no_match("b c is not a valid product");
      }
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(1), "reassoc");
    Value bc = rw.add(MatMul{}, {m.var(1), m.var(2)}, n + ".bc");
    return {rw.add(detail::op_at<MatMul>(g, m.node(1)), {m.var(0), bc}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::chain_example<Set>(rng, true);
  }
};

struct MatMulReassociateLeft : PatternRule<MatMulReassociateLeft> {
  static constexpr std::string_view name = "matmul-reassociate-left";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var(), c = p.var();
    auto bc = p.op(is<MatMul>, {b, c}).when(detail::plain_matmul);
    auto abc = p.op(is<MatMul>, {a, bc});
    p.output(abc);
    p.check([](Graph<Set> const& g, Match const& m) {
      try {
        TensorDesc ab = detail::matmul_desc(g.desc(m.var(0)), g.desc(m.var(1)));
        return detail::matmul_gives(ab, g.desc(m.var(2)), g[m.node(1)].outputs[0]) ? ok : no_match("the reassociated shapes differ");
      } catch (ShapeError const&) {
        return no_match("a b is not a valid product");
      }
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(1), "reassoc");
    Value ab = rw.add(MatMul{}, {m.var(0), m.var(1)}, n + ".ab");
    return {rw.add(detail::op_at<MatMul>(g, m.node(1)), {ab, m.var(2)}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    return detail::chain_example<Set>(rng, false);
  }
};

struct TransposeTranspose : PatternRule<TransposeTranspose> {
  static constexpr std::string_view name = "transpose-transpose";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var();
    auto t1 = p.op(is<Transpose>, {x});
    auto t2 = p.op(is<Transpose>, {t1});
    p.output(t2);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    auto const& p1 = detail::op_at<Transpose>(g, m.node(0)).perm;
    auto const& p2 = detail::op_at<Transpose>(g, m.node(1)).perm;
    std::vector<std::int64_t> p(p2.size());
    bool identity = true;
    for (std::size_t i = 0; i < p2.size(); ++i) {
      p[i] = p1[static_cast<std::size_t>(p2[i])];  // output axis i reads t1's axis p2[i], which is x's axis p1[p2[i]]
      identity = identity && p[i] == static_cast<std::int64_t>(i);
    }
    if (identity) return {m.var(0)};
    return {rw.add(Transpose{p}, {m.var(0)}, g[m.node(1)].name)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {2, 3, 4, 5});
    std::vector<std::int64_t> p1{0, 1, 2, 3}, p2{0, 1, 2, 3};
    std::shuffle(p1.begin(), p1.end(), rng);
    if (detail::coin(rng)) {  // the inverse: the pair cancels
      for (std::size_t i = 0; i < 4; ++i) p2[static_cast<std::size_t>(p1[i])] = static_cast<std::int64_t>(i);
    } else {
      std::shuffle(p2.begin(), p2.end(), rng);
    }
    return std::move(b).build({b.relu(b.transpose(b.transpose(x, p1), p2))});
  }
};

struct TransposeOfMatMul : PatternRule<TransposeOfMatMul> {
  static constexpr std::string_view name = "transpose-of-matmul";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var();
    auto mm = p.op(is<MatMul>, {a, b});
    auto t = p.op(is<Transpose>, {mm}).when(detail::swaps_last_two);
    p.output(t);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(1), "swapped");
    Value tb = rw.add(Transpose{detail::swap_last_two(g.desc(m.var(1)).shape.rank())}, {m.var(1)}, n + ".tb");
    Value ta = rw.add(Transpose{detail::swap_last_two(g.desc(m.var(0)).shape.rank())}, {m.var(0)}, n + ".ta");
    return {rw.add(detail::op_at<MatMul>(g, m.node(0)), {tb, ta}, n)};  // act commutes with the transpose
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t m = detail::pick(rng, {2, 3}), k = detail::pick(rng, {3, 4}), n = detail::pick(rng, {2, 5});
    bool batched = detail::coin(rng);
    auto a = b.input("a", batched ? Shape{2, m, k} : Shape{m, k});
    auto w = b.input("w", detail::coin(rng) && batched ? Shape{2, k, n} : Shape{k, n});
    auto y = b.matmul(a, w, detail::coin(rng) ? Activation::sigmoid : Activation::none);
    return std::move(b).build({b.transpose(y, detail::swap_last_two(b.shape(y).rank()))});
  }
};

struct MatMulOfTransposes : PatternRule<MatMulOfTransposes> {
  static constexpr std::string_view name = "matmul-of-transposes";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var b = p.var(), a = p.var();
    auto tb = p.op(is<Transpose>, {b}).when(detail::swaps_last_two);
    auto ta = p.op(is<Transpose>, {a}).when(detail::swaps_last_two);
    auto mm = p.op(is<MatMul>, {tb, ta});
    p.output(mm);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(2), "unswapped");
    Value ab = rw.add(detail::op_at<MatMul>(g, m.node(2)), {m.var(1), m.var(0)}, n + ".ab");
    return {rw.add(Transpose{detail::swap_last_two(g.desc(ab).shape.rank())}, {ab}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t m = detail::pick(rng, {2, 3}), k = detail::pick(rng, {3, 4}), n = detail::pick(rng, {2, 5});
    auto a = b.input("a", detail::coin(rng) ? Shape{2, m, k} : Shape{m, k});
    auto w = b.input("w", {k, n});
    auto y = b.matmul(b.transpose(w, {1, 0}), b.transpose(a, detail::swap_last_two(b.shape(a).rank())));
    return std::move(b).build({y});
  }
};

}  // namespace autograph::rules
