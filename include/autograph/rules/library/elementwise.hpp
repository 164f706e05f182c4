#pragma once
// Elementwise algebra (TASO's axioms; the SRU simplification of the AutoGraph paper):
//   a o b            => b o a              commute-add, commute-mul
//   (a o b) o c      => a o (b o c)        associate-add, associate-mul
//   a*b + a*c        => a*(b + c)          factor-mul-over-add
//   a*(b + c)        => a*b + a*c          distribute-mul-over-add
//   x*y + (1-x)*z    => x*(y - z) + z      simplify-sru-gate, with 1-x = Scale{-1, 1}(x)
// Broadcasting is allowed throughout: each side broadcasts to the same shape.
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {
inline namespace library {
using namespace dsl;

template <FixedString Name, class Op>
  requires Op::commutative
struct Commute : Rewrite<Commute<Name, Op>, Name> {
  static constexpr auto from = op<Op>(a, b).check([](auto const& m) { return to_status(m[a] != m[b], "both operands are one value"); });
  static constexpr auto to = op<Op>(b, a);
};

template <FixedString Name, class Op>
struct Associate : Rewrite<Associate<Name, Op>, Name> {
  static constexpr auto from = op<Op>(op<Op>(a, b), c);
  static constexpr auto to = op<Op>(a, op<Op>(b, c));
};

using CommuteAdd = Commute<"commute-add", Add>;
using CommuteMul = Commute<"commute-mul", Mul>;
using AssociateAdd = Associate<"associate-add", Add>;
using AssociateMul = Associate<"associate-mul", Mul>;

struct FactorMulOverAdd : Rewrite<FactorMulOverAdd, "factor-mul-over-add"> {
  static constexpr auto from = add(mul(a, b).commutative(), mul(a, c).commutative());
  static constexpr auto to = mul(a, add(b, c));
};

struct DistributeMulOverAdd : Rewrite<DistributeMulOverAdd, "distribute-mul-over-add"> {
  static constexpr auto from = mul(a, add(b, c)).commutative();
  static constexpr auto to = add(mul(a, b), mul(a, c));
};

struct SimplifySruGate : Rewrite<SimplifySruGate, "simplify-sru-gate"> {
  static constexpr auto one_minus_x = scale(x).when([](Scale const& s) { return to_status(s.scale == -1.f && s.shift == 1.f, "the scale is not 1 - x"); });
  static constexpr auto from = add(mul(x, y).commutative(), mul(one_minus_x, z).commutative()).commutative();
  static constexpr auto to = add(mul(x, sub(y, z)), z);
};

}  // namespace library

// Random examples (numerical verification): operands of shape {3, 4}, or broadcasting {4} / {3, 1}.
namespace detail {
template <class Set>
Value random_operand(GraphBuilder<Set>& b, std::mt19937_64& rng, std::string const& name, bool broadcast) {
  Shape s{3, 4};
  if (broadcast) s = coin(rng) ? Shape{4} : Shape{3, 1};
  return b.input(name, s);
}
}  // namespace detail

template <FixedString Name, class Op>
struct RuleExample<Commute<Name, Op>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = detail::random_operand(b, rng, "a", false), y = detail::random_operand(b, rng, "b", detail::coin(rng));
    return std::move(b).build({b.relu(b.add(Op{}, {x, y}))});
  }
};

template <FixedString Name, class Op>
struct RuleExample<Associate<Name, Op>> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = detail::random_operand(b, rng, "a", detail::coin(rng)), y = detail::random_operand(b, rng, "b", detail::coin(rng)),
         z = detail::random_operand(b, rng, "c", false);
    return std::move(b).build({b.add(Op{}, {b.add(Op{}, {x, y}), z})});
  }
};

template <>
struct RuleExample<FactorMulOverAdd> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto a = detail::random_operand(b, rng, "a", detail::coin(rng)), x = detail::random_operand(b, rng, "b", false),
         y = detail::random_operand(b, rng, "c", detail::coin(rng));
    Value l = detail::coin(rng) ? b.mul(a, x) : b.mul(x, a);
    Value r = detail::coin(rng) ? b.mul(a, y) : b.mul(y, a);
    return std::move(b).build({b.add(l, r)});
  }
};

template <>
struct RuleExample<DistributeMulOverAdd> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto a = detail::random_operand(b, rng, "a", detail::coin(rng)), x = detail::random_operand(b, rng, "b", false),
         y = detail::random_operand(b, rng, "c", detail::coin(rng));
    Value s = b.add(x, y);
    return std::move(b).build({detail::coin(rng) ? b.mul(a, s) : b.mul(s, a)});
  }
};

template <>
struct RuleExample<SimplifySruGate> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.sigmoid(detail::random_operand(b, rng, "x", false));
    auto y = detail::random_operand(b, rng, "y", detail::coin(rng)), z = detail::random_operand(b, rng, "z", detail::coin(rng));
    Value l = detail::coin(rng) ? b.mul(x, y) : b.mul(y, x);
    Value g = b.scale(x, -1.f, 1.f);
    Value r = detail::coin(rng) ? b.mul(g, z) : b.mul(z, g);
    return std::move(b).build({detail::coin(rng) ? b.add(l, r) : b.add(r, l)});
  }
};

}  // namespace autograph::rules
