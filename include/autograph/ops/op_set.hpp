#pragma once
// An operator set is a type list; a graph is generic over it. User code extends the built-in
// set with its own operator types:  using MyOps = extend_t<BuiltinOps, MyOp>;
#include <type_traits>
#include <optional>
#include <string>

#include "autograph/core/error.hpp"
#include "autograph/ops/any_op.hpp"

namespace autograph {

template <class... Ops>
struct OpSet {
  static_assert((Operator<Ops> && ...), "every type in an OpSet must model autograph::Operator (see ops/operator.hpp)");
  template <class Op>
  static constexpr bool contains = (std::is_same_v<Op, Ops> || ...);
  static constexpr std::size_t size = sizeof...(Ops);
  /// True when `op` holds one of this set's types.
  static bool holds(AnyOp const& op) { return (op.is<Ops>() || ...); }
};

namespace detail {
[[noreturn]] inline void not_in_set(AnyOp const& op) {
  throw Error("operator " + std::string(op.has_value() ? op.name() : "<empty>") + " is not in this operator set");
}
template <class First, class... Ops, class F>
decltype(auto) visit_op_impl(OpSet<First, Ops...>*, AnyOp const& op, F& f) {
  using R = std::invoke_result_t<F&, First const&>;
  if constexpr (std::is_void_v<R>) {
    bool done = (op.is<First>() ? (f(*op.get_if<First>()), true) : false) || (... || (op.is<Ops>() ? (f(*op.get_if<Ops>()), true) : false));
    if (!done) not_in_set(op);
  } else {
    std::optional<R> r;
    (void)((op.is<First>() ? (r.emplace(f(*op.get_if<First>())), true) : false) ||
           (... || (op.is<Ops>() ? (r.emplace(f(*op.get_if<Ops>())), true) : false)));
    if (!r) not_in_set(op);
    return R(std::move(*r));
  }
}
}  // namespace detail

/// Calls f with the concrete operator held by `op`, which must be a type of `Set`.
/// Instantiates f for every type of the set: use it where every op needs its own code
/// (executors, exporters), not on hot paths that only test a type.
template <class Set, class F>
decltype(auto) visit_op(AnyOp const& op, F&& f) {
  return detail::visit_op_impl(static_cast<Set*>(nullptr), op, f);
}

template <class Set, class... More>
struct extend;
template <class... Ops, class... More>
struct extend<OpSet<Ops...>, More...> {
  using type = OpSet<Ops..., More...>;
};
/// The set `Set` plus the operator types `More...`.
template <class Set, class... More>
using extend_t = typename extend<Set, More...>::type;

}  // namespace autograph
