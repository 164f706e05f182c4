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
inline constexpr auto plain_matmul = [](MatMul const& m) { return to_status(m.act == Activation::none, "the inner matmul applies an activation"); };

/// The transpose that swaps the last two of `rank` axes.
inline std::vector<std::int64_t> swap_last_two(std::size_t rank) {
  std::vector<std::int64_t> p(rank);
  std::iota(p.begin(), p.end(), 0);
  if (rank >= 2) std::swap(p[rank - 1], p[rank - 2]);
  return p;
}
inline constexpr auto swaps_last_two = [](Transpose const& t) {
  return to_status(t.perm.size() >= 2 && t.perm == swap_last_two(t.perm.size()), "the transpose does not swap the last two axes");
};
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

inline namespace library {
using namespace dsl;

struct MatMulReassociateRight : Rewrite<MatMulReassociateRight, "matmul-reassociate-right"> {
  static constexpr auto abc = matmul(matmul(a, b).when(detail::plain_matmul), c);
  static constexpr auto from = abc.check([](auto const& m) {
    try {
      TensorDesc bc = detail::matmul_desc(m.desc(b), m.desc(c));
      return to_status(detail::matmul_gives(m.desc(a), bc, m.graph()[m.node(abc)].outputs[0]), "the reassociated shapes differ");
    } catch (ShapeError const&) {
      return no_match("b c is not a valid product");
    }
  });
  static constexpr auto to = abc.with(a, matmul(b, c));
};

struct MatMulReassociateLeft : Rewrite<MatMulReassociateLeft, "matmul-reassociate-left"> {
  static constexpr auto abc = matmul(a, matmul(b, c).when(detail::plain_matmul));
  static constexpr auto from = abc.check([](auto const& m) {
    try {
      TensorDesc ab = detail::matmul_desc(m.desc(a), m.desc(b));
      return to_status(detail::matmul_gives(ab, m.desc(c), m.graph()[m.node(abc)].outputs[0]), "the reassociated shapes differ");
    } catch (ShapeError const&) {
      return no_match("a b is not a valid product");
    }
  });
  static constexpr auto to = abc.with(matmul(a, b), c);
};

/// The composed permutation is computed from the match.
struct TransposeTranspose : Rewrite<TransposeTranspose, "transpose-transpose"> {
  static constexpr auto t1 = transpose(x);
  static constexpr auto from = transpose(t1);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    auto const& p1 = m[t1].perm;
    auto const& p2 = m[from].perm;
    std::vector<std::int64_t> p(p2.size());
    bool identity = true;
    for (std::size_t i = 0; i < p2.size(); ++i) {
      p[i] = p1[static_cast<std::size_t>(p2[i])];  // output axis i reads t1's axis p2[i], which is x's axis p1[p2[i]]
      identity = identity && p[i] == static_cast<std::int64_t>(i);
    }
    if (identity) return {m[x]};
    return {rw.add(Transpose{p}, {m[x]}, m.name(from))};
  }
};

/// The transposes' permutations depend on the operands' ranks.
struct TransposeOfMatMul : Rewrite<TransposeOfMatMul, "transpose-of-matmul"> {
  static constexpr auto ab = matmul(a, b);
  static constexpr auto from = transpose(ab).when(detail::swaps_last_two);
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    std::string n = detail::derived_name(m.graph(), m.root(), "swapped");
    MatMul mm = m[ab];  // act commutes with the transpose
    Value tb = rw.add(Transpose{detail::swap_last_two(m.desc(b).shape.rank())}, {m[b]}, n + ".tb");
    Value ta = rw.add(Transpose{detail::swap_last_two(m.desc(a).shape.rank())}, {m[a]}, n + ".ta");
    return {rw.add(mm, {tb, ta}, n)};
  }
};

struct MatMulOfTransposes : Rewrite<MatMulOfTransposes, "matmul-of-transposes"> {
  static constexpr auto from = matmul(transpose(b).when(detail::swaps_last_two), transpose(a).when(detail::swaps_last_two));
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& match) {
    auto m = bind<Set>(rw, match);
    std::string n = detail::derived_name(m.graph(), m.root(), "unswapped");
    MatMul mm = m[from];
    Value ab = rw.add(mm, {m[a], m[b]}, n + ".ab");
    return {rw.add(Transpose{detail::swap_last_two(rw.graph().desc(ab).shape.rank())}, {ab}, n)};
  }
};

}  // namespace library

template <>
struct RuleExample<MatMulReassociateRight> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::chain_example<Set>(rng, true);
  }
};

template <>
struct RuleExample<MatMulReassociateLeft> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    return detail::chain_example<Set>(rng, false);
  }
};

template <>
struct RuleExample<TransposeTranspose> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
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

template <>
struct RuleExample<TransposeOfMatMul> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t m = detail::pick(rng, {2, 3}), k = detail::pick(rng, {3, 4}), n = detail::pick(rng, {2, 5});
    bool batched = detail::coin(rng);
    auto a = b.input("a", batched ? Shape{2, m, k} : Shape{m, k});
    auto w = b.input("w", detail::coin(rng) && batched ? Shape{2, k, n} : Shape{k, n});
    auto y = b.matmul(a, w, detail::coin(rng) ? Activation::sigmoid : Activation::none);
    return std::move(b).build({b.transpose(y, detail::swap_last_two(b.shape(y).rank()))});
  }
};

template <>
struct RuleExample<MatMulOfTransposes> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    std::int64_t m = detail::pick(rng, {2, 3}), k = detail::pick(rng, {3, 4}), n = detail::pick(rng, {2, 5});
    auto a = b.input("a", detail::coin(rng) ? Shape{2, m, k} : Shape{m, k});
    auto w = b.input("w", {k, n});
    auto y = b.matmul(b.transpose(w, {1, 0}), b.transpose(a, detail::swap_last_two(b.shape(a).rank())));
    return std::move(b).build({y});
  }
};

}  // namespace autograph::rules
