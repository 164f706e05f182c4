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

namespace detail {
template <class Set>
Value random_operand(GraphBuilder<Set>& b, std::mt19937_64& rng, std::string const& name, bool broadcast) {
  Shape s{3, 4};
  if (broadcast) s = coin(rng) ? Shape{4} : Shape{3, 1};
  return b.input(name, s);
}
}  // namespace detail

template <FixedString Name, class Op>
  requires Op::commutative
struct Commute : PatternRule<Commute<Name, Op>> {
  static constexpr std::string_view name = Name;
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var();
    auto op = p.op(is<Op>, {a, b});
    p.output(op);
    p.check([](Graph<Set> const&, Match const& m) { return m.var(0) != m.var(1) ? ok : no_match("both operands are one value"); });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    return {rw.add(Op{}, {m.var(1), m.var(0)}, rw.graph()[m.node(0)].name)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = detail::random_operand(b, rng, "a", false), y = detail::random_operand(b, rng, "b", detail::coin(rng));
    return std::move(b).build({b.relu(b.add(Op{}, {x, y}))});
  }
};

template <FixedString Name, class Op>
struct Associate : PatternRule<Associate<Name, Op>> {
  static constexpr std::string_view name = Name;
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var(), c = p.var();
    auto ab = p.op(is<Op>, {a, b});
    auto abc = p.op(is<Op>, {ab, c});
    p.output(abc);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    std::string n = detail::derived_name(rw.graph(), m.node(1), "assoc");
    Value bc = rw.add(Op{}, {m.var(1), m.var(2)}, n + ".bc");
    return {rw.add(Op{}, {m.var(0), bc}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = detail::random_operand(b, rng, "a", detail::coin(rng)), y = detail::random_operand(b, rng, "b", detail::coin(rng)),
         z = detail::random_operand(b, rng, "c", false);
    return std::move(b).build({b.add(Op{}, {b.add(Op{}, {x, y}), z})});
  }
};

using CommuteAdd = Commute<"commute-add", Add>;
using CommuteMul = Commute<"commute-mul", Mul>;
using AssociateAdd = Associate<"associate-add", Add>;
using AssociateMul = Associate<"associate-mul", Mul>;

struct FactorMulOverAdd : PatternRule<FactorMulOverAdd> {
  static constexpr std::string_view name = "factor-mul-over-add";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var(), c = p.var();
    auto ab = p.op(is<Mul>, {a, b}).commutative();
    auto ac = p.op(is<Mul>, {a, c}).commutative();
    auto sum = p.op(is<Add>, {ab, ac});
    p.output(sum);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    std::string n = detail::derived_name(rw.graph(), m.node(2), "factored");
    Value bc = rw.add(Add{}, {m.var(1), m.var(2)}, n + ".sum");
    return {rw.add(Mul{}, {m.var(0), bc}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto a = detail::random_operand(b, rng, "a", detail::coin(rng)), x = detail::random_operand(b, rng, "b", false),
         y = detail::random_operand(b, rng, "c", detail::coin(rng));
    Value l = detail::coin(rng) ? b.mul(a, x) : b.mul(x, a);
    Value r = detail::coin(rng) ? b.mul(a, y) : b.mul(y, a);
    return std::move(b).build({b.add(l, r)});
  }
};

struct DistributeMulOverAdd : PatternRule<DistributeMulOverAdd> {
  static constexpr std::string_view name = "distribute-mul-over-add";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var(), c = p.var();
    auto sum = p.op(is<Add>, {b, c});
    auto prod = p.op(is<Mul>, {a, sum}).commutative();
    p.output(prod);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    std::string n = detail::derived_name(rw.graph(), m.node(1), "distributed");
    Value ab = rw.add(Mul{}, {m.var(0), m.var(1)}, n + ".ab");
    Value ac = rw.add(Mul{}, {m.var(0), m.var(2)}, n + ".ac");
    return {rw.add(Add{}, {ab, ac}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto a = detail::random_operand(b, rng, "a", detail::coin(rng)), x = detail::random_operand(b, rng, "b", false),
         y = detail::random_operand(b, rng, "c", detail::coin(rng));
    Value s = b.add(x, y);
    return std::move(b).build({detail::coin(rng) ? b.mul(a, s) : b.mul(s, a)});
  }
};

struct SimplifySruGate : PatternRule<SimplifySruGate> {
  static constexpr std::string_view name = "simplify-sru-gate";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var x = p.var(), y = p.var(), z = p.var();
    auto xy = p.op(is<Mul>, {x, y}).commutative();
    auto one_minus_x = p.op(is<Scale>, {x}).when([](Scale const& s) { return s.scale == -1.f && s.shift == 1.f ? ok : no_match("the scale is not 1 - x"); });
    auto gz = p.op(is<Mul>, {one_minus_x, z}).commutative();
    auto sum = p.op(is<Add>, {xy, gz}).commutative();
    p.output(sum);
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    std::string n = detail::derived_name(rw.graph(), m.node(3), "sru");
    Value d = rw.add(Sub{}, {m.var(1), m.var(2)}, n + ".diff");
    Value xd = rw.add(Mul{}, {m.var(0), d}, n + ".gate");
    return {rw.add(Add{}, {xd, m.var(2)}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
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
