#pragma once
// Collage's pattern language (§3, Listing 1, "Method 1") is the rules' own: a pattern is a
// small DAG of operator constraints over shared variables (rules/pattern.hpp), so a backend
// writes conv2d + add + relu exactly as a rewrite rule writes its source:
//
//   PatternBuilder<Set> p;
//   Var x = p.var(), w = p.var(), y = p.var();                       // wildcard(): any value
//   auto conv = p.op(is<Conv2D>, {x, w}).extra_inputs()               // is_op('conv2d')
//                   .when([](Conv2D const& c) { return c.groups == 1; });  // has_attr(...)
//   auto add = p.op(is<Add>, {conv, y}).commutative();                // producer/consumer relation
//   p.output(p.op(is<Relu>, {add}));
//
// Collage's wildcard *operator* (a node of any type) is any_op(): a node accepting every
// operator type of the set. The matcher (rules/matcher.hpp) already enforces what a group
// needs: a value computed inside a match and read outside must be a declared output, and the
// match must not close a cycle.
#include <vector>

#include "autograph/ops/op_set.hpp"
#include "autograph/rules/pattern.hpp"

namespace autograph::placement {

using rules::is;
using rules::Operand;
using rules::Pattern;
using rules::PatternBuilder;
using rules::Var;

namespace detail {
template <class... Ops>
std::vector<void const*> kernel_type_ids(OpSet<Ops...>*) {
  std::vector<void const*> r;
  ((is_source_op<Ops> ? void() : r.push_back(AnyOp::type_id_of<Ops>())), ...);
  return r;
}
}  // namespace detail

/// Collage's wildcard operator: a pattern node matching any operator of `Set` that runs as a
/// kernel (not Input or Weight), reading `inputs` first and possibly more.
template <class Set>
auto any_op(PatternBuilder<Set>& p, std::initializer_list<Operand> inputs) {
  static std::vector<void const*> const types = detail::kernel_type_ids(static_cast<Set*>(nullptr));
  return p.op_of(types, inputs, "*").extra_inputs();
}

}  // namespace autograph::placement
