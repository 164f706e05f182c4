#pragma once
// Declarative rules: a source and a target written as expressions over typed variables, egg
// style, so a rule reads like the math in its comment:
//
//   struct FactorMulOverAdd : Rewrite<FactorMulOverAdd, "factor-mul-over-add"> {   // a*b + a*c => a*(b + c)
//     static constexpr auto from = add(mul(a, b).commutative(), mul(a, c).commutative());
//     static constexpr auto to = mul(a, add(b, c));
//   };
//
// Everything is a type: a variable is Variable<I>, an operator node OpExpr<Op, flags, checks,
// inputs...>, and a constraint a captureless lambda (`.when(f)` on one node, f(op) or
// f(graph, node); `.check(f)` on the whole match, f(bindings)). Identical subexpressions are one
// node (a DAG: x * sigmoid(x) reads x twice). The source compiles once per operator set to the
// runtime Pattern through PatternBuilder, declaring nodes in post-order; the target builds
// through the Rewriter in post-order. A target variable the source never binds is a compile
// error. Rules whose target must be computed keep an apply() and read the match by name:
// `auto m = bind<Set>(rw, match); m[conv]` is the matched Conv2D, `m[x]` the Value bound to x.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

#include "autograph/rules/rule.hpp"

namespace autograph::rules {

namespace dsl {

/// A pattern variable: any value outside the match. Its runtime index is the order of first
/// appearance in the source (post-order), as PatternBuilder::var() would give it.
template <int I>
struct Variable {
  static_assert(I >= 0 && I < 64, "at most 64 variables");
  static constexpr std::uint64_t vars = std::uint64_t{1} << I;
};
inline constexpr Variable<0> a;
inline constexpr Variable<1> b;
inline constexpr Variable<2> c;
inline constexpr Variable<3> d;
inline constexpr Variable<4> w;
inline constexpr Variable<5> x;
inline constexpr Variable<6> y;
inline constexpr Variable<7> z;

template <class... F>
struct Checks {};
inline constexpr unsigned commutative_flag = 1, extra_inputs_flag = 2;

template <class Node, class... In>
struct CopyOp;

/// An operator node: an operator type O reading In... (variables or other nodes).
template <class O, unsigned Flags, class C, class... In>
struct OpExpr {
  using op_type = O;
  static constexpr std::uint64_t vars = (std::uint64_t{0} | ... | In::vars);
  static constexpr unsigned flags = Flags;
  /// A binary node that matches its operands in either order.
  constexpr OpExpr<O, Flags | commutative_flag, C, In...> commutative() const {
    static_assert(sizeof...(In) == 2, "only binary nodes can be commutative");
    return {};
  }
  /// The matched op may have more inputs than listed (Conv2D's bias).
  constexpr OpExpr<O, Flags | extra_inputs_flag, C, In...> extra_inputs() const { return {}; }
  /// A constraint on the matched op: f(op) or f(graph, node_id), returning bool or Status.
  template <class F>
  constexpr auto when(F) const {
    static_assert(std::is_empty_v<F> && std::is_default_constructible_v<F>, "a constraint is a captureless lambda");
    return append(C{}, F{});
  }
  /// In a target: this source node's op (attributes and all), reading new inputs.
  template <class... T>
  constexpr CopyOp<OpExpr, T...> with(T...) const {
    return {};
  }
  template <class F>
  constexpr auto check(F) const;

 private:
  template <class... G, class F>
  static constexpr OpExpr<O, Flags, Checks<G..., F>, In...> append(Checks<G...>, F) {
    return {};
  }
};

/// A target node: the op of source node Node, reading In...
template <class Node, class... In>
struct CopyOp {
  using op_type = typename Node::op_type;
  static constexpr std::uint64_t vars = (std::uint64_t{0} | ... | In::vars);
};

/// A source with whole-match constraints f(bindings) -> bool or Status.
template <class E, class... F>
struct Checked {
  static constexpr std::uint64_t vars = E::vars;
  template <class G>
  constexpr Checked<E, F..., G> check(G) const {
    static_assert(std::is_empty_v<G>, "a constraint is a captureless lambda");
    return {};
  }
};
template <class O, unsigned Flags, class C, class... In>
template <class F>
constexpr auto OpExpr<O, Flags, C, In...>::check(F) const {
  static_assert(std::is_empty_v<F>, "a constraint is a captureless lambda");
  return Checked<OpExpr, F>{};
}

/// A class of operator types computed from the operator set (a concept such as "ops that merge
/// along channels"): O has `using op_class_tag = void`, a `label`, and types<Set>() returning
/// the type ids. op<O>(inputs...) then matches any of those types; m[node] is the AnyOp.
template <class O>
concept OpClass = requires { typename O::op_class_tag; };

/// op<O>(inputs...): a node of operator type (or OpClass) O.
template <class O>
struct OpMaker {
  template <class... In>
  constexpr OpExpr<O, 0, Checks<>, In...> operator()(In...) const {
    return {};
  }
};
template <class O>
inline constexpr OpMaker<O> op{};
inline constexpr OpMaker<Add> add;
inline constexpr OpMaker<Sub> sub;
inline constexpr OpMaker<Mul> mul;
inline constexpr OpMaker<MatMul> matmul;
inline constexpr OpMaker<Transpose> transpose;
inline constexpr OpMaker<Scale> scale;
inline constexpr OpMaker<Pool2D> pool2d;
inline constexpr OpMaker<Conv2D> conv2d;

}  // namespace dsl

namespace detail {

template <class E>
inline constexpr bool is_variable = false;
template <int I>
inline constexpr bool is_variable<dsl::Variable<I>> = true;

template <class... Ts>
struct TypeList {};

template <class L, class T>
struct PushUnique;
template <class... Ts, class T>
struct PushUnique<TypeList<Ts...>, T> {
  using type = std::conditional_t<(std::is_same_v<T, Ts> || ...), TypeList<Ts...>, TypeList<Ts..., T>>;
};

/// The variables and nodes of an expression in post-order, each once: Acc extended by E's.
/// Computed on types rather than on addresses of per-type tags: under -fsanitize=address GCC
/// refuses to compare the addresses of two distinct objects in a constant expression.
template <class E, class Acc>
struct PostOrder : PushUnique<Acc, E> {};  // a variable
template <class Acc, class... In>
struct PostOrderAll {
  using type = Acc;
};
template <class Acc, class I, class... Rest>
struct PostOrderAll<Acc, I, Rest...> : PostOrderAll<typename PostOrder<I, Acc>::type, Rest...> {};
template <class O, unsigned F, class C, class... In, class Acc>
struct PostOrder<dsl::OpExpr<O, F, C, In...>, Acc>
    : PushUnique<typename PostOrderAll<Acc, In...>::type, dsl::OpExpr<O, F, C, In...>> {};
template <class N, class... In, class Acc>
struct PostOrder<dsl::CopyOp<N, In...>, Acc>
    : PushUnique<typename PostOrderAll<Acc, In...>::type, dsl::CopyOp<N, In...>> {};

template <class E>
struct RootOf {
  using type = E;
};
template <class E, class... F>
struct RootOf<dsl::Checked<E, F...>> {
  using type = E;
};

template <class Source>
using PostOrderOf = typename PostOrder<typename RootOf<Source>::type, TypeList<>>::type;

// Where T goes among the items of its kind, as PatternBuilder numbers them: variables by first
// appearance, nodes in post-order with identical subexpressions once; -1 when T is not there.
template <class T, class... Ts>
constexpr int position_among_kind(TypeList<Ts...>) {
  int i = 0, found = -1;
  ((found < 0 && std::is_same_v<T, Ts> ? void(found = i) : void(), i += is_variable<Ts> == is_variable<T>), ...);
  return found;
}
template <bool Variables, class... Ts>
constexpr std::size_t count_of_kind(TypeList<Ts...>) {
  return (std::size_t{0} + ... + std::size_t{is_variable<Ts> == Variables});
}

template <class Source, class T>
inline constexpr int position_in = position_among_kind<T>(PostOrderOf<Source>{});
template <class Source>
inline constexpr std::size_t num_nodes = count_of_kind<false>(PostOrderOf<Source>{});
template <class Source>
inline constexpr std::size_t num_vars = count_of_kind<true>(PostOrderOf<Source>{});

}  // namespace detail

/// The match of a rule whose source is the expression Source, read by name: m[x] is the Value
/// bound to variable x, m[conv] the matched op of node conv (a Conv2D const& when conv is a
/// Conv2D node), m.node(conv) its NodeId, m.inputs(conv) its inputs.
template <class Source, class Set>
class Bindings {
 public:
  Bindings(Graph<Set> const& g, Match const& m) : g_(g), m_(m) {}

  template <int I>
  Value operator[](dsl::Variable<I>) const {
    constexpr int i = detail::position_in<Source, dsl::Variable<I>>;
    static_assert(i >= 0, "the source does not bind this variable");
    return m_.var(static_cast<std::size_t>(i));
  }
  template <class E>
    requires(!detail::is_variable<E>)
  decltype(auto) operator[](E e) const {
    if constexpr (dsl::OpClass<typename E::op_type>)
      return (g_[node(e)].op);  // AnyOp const&
    else
      return *g_[node(e)].op.template get_if<typename E::op_type>();
  }
  template <class E>
  NodeId node(E) const {
    constexpr int i = detail::position_in<Source, E>;
    static_assert(i >= 0, "this node is not part of the source");
    return m_.node(static_cast<std::size_t>(i));
  }
  template <class E>
  std::span<Value const> inputs(E e) const {
    return g_[node(e)].inputs;
  }
  template <class E>
  std::string const& name(E e) const {
    return g_[node(e)].name;
  }
  template <int I>
  TensorDesc const& desc(dsl::Variable<I> v) const {
    return g_.desc((*this)[v]);
  }
  /// The source's root node (the last one in post-order).
  NodeId root() const { return m_.node(detail::num_nodes<Source> - 1); }
  Graph<Set> const& graph() const { return g_; }
  Match const& match() const { return m_; }

 private:
  Graph<Set> const& g_;
  Match const& m_;
};

namespace detail {

template <class Source, class Set>
struct SourceCompiler {
  PatternBuilder<Set>& p;
  std::array<Operand, num_vars<Source>> vars{};
  std::array<bool, num_vars<Source>> var_declared{};
  std::array<Operand, num_nodes<Source>> nodes{};
  std::array<bool, num_nodes<Source>> declared{};

  // Declares E's variables and nodes on first use, in the order ExprLayout numbered them.
  template <class E>
  Operand operand() {
    if constexpr (is_variable<E>) {
      constexpr auto i = static_cast<std::size_t>(position_in<Source, E>);
      if (!var_declared[i]) vars[i] = p.var(), var_declared[i] = true;
      return vars[i];
    } else {
      constexpr auto i = static_cast<std::size_t>(position_in<Source, E>);
      if (!declared[i]) nodes[i] = declare(E{}), declared[i] = true;
      return nodes[i];
    }
  }
  template <class O, unsigned F, class... C, class... In>
  Operand declare(dsl::OpExpr<O, F, dsl::Checks<C...>, In...>) {
    std::initializer_list<Operand> ins{operand<In>()...};  // a braced list runs left to right: post-order
    if constexpr (dsl::OpClass<O>)
      return flags<F, C...>(p.op_of(O::template types<Set>(), ins, std::string(O::label)));
    else
      return flags<F, C...>(p.op(is<O>, ins));
  }
  template <unsigned F, class... C, class N>
  static Operand flags(N n) {
    if constexpr ((F & dsl::commutative_flag) != 0) n.commutative();
    if constexpr ((F & dsl::extra_inputs_flag) != 0) n.extra_inputs();
    (n.when(C{}), ...);
    return n;
  }
};

template <class Source>
struct MatchChecks {
  template <class Set>
  static void add(PatternBuilder<Set>&) {}
};
template <class E, class... F>
struct MatchChecks<dsl::Checked<E, F...>> {
  template <class Set>
  static void add(PatternBuilder<Set>& p) {
    using Source = dsl::Checked<E, F...>;
    (p.check([](Graph<Set> const& g, Match const& m) { return to_status(F{}(Bindings<Source, Set>(g, m))); }), ...);
  }
};

/// The name of a target node: the source root's name, then the rule's.
template <class Set>
std::string target_name(Graph<Set> const& g, NodeId root, std::string_view rule) {
  return g[root].name.empty() ? std::string(rule) : g[root].name + "/" + std::string(rule);
}

}  // namespace detail

/// The Pattern of a source expression.
template <class Set, class Source>
Pattern<Set> compile_source() {
  PatternBuilder<Set> p;
  detail::SourceCompiler<Source, Set> sc{p};
  p.output(sc.template operand<typename detail::RootOf<Source>::type>());
  detail::MatchChecks<Source>::add(p);
  return std::move(p).build();
}

namespace detail {

/// Builds a target expression through the Rewriter, post-order, one node per distinct subexpression.
template <class Source, class Target, class Set>
struct TargetBuilder {
  Rewriter<Set>& rw;
  Bindings<Source, Set> m;
  std::string const& base;  // name prefix of the target's inner nodes
  std::array<std::optional<Value>, num_nodes<Target>> built{};

  template <class E>
  Value value() {
    if constexpr (is_variable<E>) {
      return m[E{}];
    } else {
      constexpr auto i = static_cast<std::size_t>(position_in<Target, E>);
      if (!built[i]) built[i] = make(E{}, i + 1 == built.size() ? base : base + "." + std::to_string(i));
      return *built[i];
    }
  }
  template <class O, unsigned F, class C, class... In>
  Value make(dsl::OpExpr<O, F, C, In...>, std::string name) {
    static_assert(!dsl::OpClass<O>, "a target builds concrete ops: copy a matched one with node.with(inputs...)");
    return rw.add(O{}, {value<In>()...}, std::move(name));
  }
  template <class N, class... In>
  Value make(dsl::CopyOp<N, In...>, std::string name) {
    Value ins[] = {value<In>()...};
    AnyOp op = rw.graph()[m.node(N{})].op;  // a copy: adding nodes may move the graph's storage
    return rw.add(op, ins, std::move(name));
  }
};

}  // namespace detail

/// True when every variable the target reads is bound by the source.
template <class R>
inline constexpr bool binds_target_vars = (std::remove_cvref_t<decltype(R::to)>::vars & ~std::remove_cvref_t<decltype(R::from)>::vars) == 0;

/// Base of a declarative rule: Derived has `static constexpr auto from` (the source expression)
/// and either `to` (the target expression) or its own apply(). Models the Rule concept.
template <class Derived, FixedString Name>
struct Rewrite {
  static constexpr std::string_view name = Name;
  /// Derived's source expression type; dependent on Set so that it is read where Derived is complete.
  template <class Set>
  using Source = std::remove_cvref_t<decltype(std::conditional_t<sizeof(Set) != 0, Derived, void>::from)>;

  template <class Set>
  static Pattern<Set> const& pattern() {
    static Pattern<Set> const p = compile_source<Set, Source<Set>>();
    return p;
  }
  template <class Set>
  static std::span<void const* const> roots() {
    auto const& p = pattern<Set>();
    return p.nodes[p.root].types;
  }
  template <class Set>
  static void match(MatchIndex<Set> const& idx, NodeId root, MatchSink sink, char const** why = nullptr) {
    match_pattern(pattern<Set>(), idx, root, sink, why);
  }
  /// The match read by name (for an apply() that computes its target).
  template <class Set>
  static Bindings<Source<Set>, Set> bind(Rewriter<Set> const& rw, Match const& m) {
    return {rw.graph(), m};
  }
  /// The target's root is named after the source's root and the rule; inner nodes add ".k".
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    using R = std::conditional_t<sizeof(Set) != 0, Derived, void>;  // dependent: checked where Derived is complete
    static_assert(binds_target_vars<R>, "the target reads a variable the source does not bind");
    auto const& g = rw.graph();
    std::string base = detail::target_name(g, Bindings<Source<Set>, Set>(g, m).root(), name);
    using To = std::remove_cvref_t<decltype(R::to)>;
    detail::TargetBuilder<Source<Set>, To, Set> t{rw, {g, m}, base};
    return {t.template value<To>()};
  }
};

}  // namespace autograph::rules
