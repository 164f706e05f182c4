#pragma once
// The Operator concept: what every op type (built-in or user-defined) provides.
//
//   struct MyOp {
//     static constexpr std::string_view name = "MyOp";
//     static constexpr Arity arity{1, 1};                 // min, max inputs
//     auto params() const { return std::tuple{...}; }     // hashed; also compared by ==
//     std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const;  // throws ShapeError
//     double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const;
//     bool operator==(MyOp const&) const = default;
//   };
//
// infer() may assume in.size() is within `arity`: Graph::add checks it once for every op
// (naming the node), and so does AnyOp::infer for code that infers outside a graph.
//
// Optional: `double bytes(in, out) const` (default: every input and output read/written
// once), `std::string attributes() const` (a short label for DOT and reports),
// `static constexpr bool is_source = true` for ops that are not kernels (Input, Weight).
#include <concepts>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/hash.hpp"
#include "autograph/core/tensor_desc.hpp"

namespace autograph {

/// How many inputs an op accepts.
struct Arity {
  std::size_t min = 0;
  std::size_t max = 0;
  static constexpr std::size_t variadic = std::numeric_limits<std::size_t>::max();
};

template <class Op>
concept Operator = std::regular<Op> && requires(Op const& op, std::span<TensorDesc const> in) {
  { Op::name } -> std::convertible_to<std::string_view>;
  { Op::arity } -> std::convertible_to<Arity>;
  { op.params() };
  { hash_tuple(op.params()) } -> std::convertible_to<std::uint64_t>;
  { op.infer(in) } -> std::same_as<std::vector<TensorDesc>>;
  { op.flops(in, in) } -> std::convertible_to<double>;
};

/// Ops that produce a value without running a kernel (graph inputs, weights).
template <class Op>
inline constexpr bool is_source_op = requires { requires Op::is_source; };

/// Opt-in trait: binary ops whose two inputs may be swapped (Add, Mul, Max, Min).
template <class Op>
inline constexpr bool is_commutative = requires { requires Op::commutative; };

/// Opt-in trait: elementwise ops (same shape in and out, one value per element).
template <class Op>
inline constexpr bool is_elementwise = requires { requires Op::elementwise; };

template <Operator Op>
std::uint64_t op_hash(Op const& op) {
  return hash_combine(hash_value(Op::name), hash_tuple(op.params()));
}

template <Operator Op>
double op_bytes(Op const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  if constexpr (requires { op.bytes(in, out); }) {
    return op.bytes(in, out);
  } else if constexpr (is_source_op<Op>) {
    return 0.0;
  } else {
    double b = 0;
    for (auto const& t : in) b += static_cast<double>(t.bytes());
    for (auto const& t : out) b += static_cast<double>(t.bytes());
    return b;
  }
}

template <Operator Op>
std::string op_attributes(Op const& op) {
  if constexpr (requires { { op.attributes() } -> std::convertible_to<std::string>; })
    return op.attributes();
  else
    return {};
}

/// Multiply-accumulates (ops that report them: Conv2D, MatMul); 0 otherwise.
template <Operator Op>
double op_macs(Op const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) {
  if constexpr (requires { { op.macs(in, out) } -> std::convertible_to<double>; })
    return op.macs(in, out);
  else
    return 0.0;
}

namespace detail {

/// "takes 2 to 3 inputs, got 1", or empty when `count` is within `a`.
inline std::string arity_mismatch(Arity a, std::size_t count) {
  if (count >= a.min && count <= a.max) return {};
  std::string want = a.min == a.max ? std::to_string(a.min)
                     : a.max == Arity::variadic ? "at least " + std::to_string(a.min)
                                                : std::to_string(a.min) + " to " + std::to_string(a.max);
  return "takes " + want + (a.max == 1 ? " input" : " inputs") + ", got " + std::to_string(count);
}

/// Throws unless in.size() is within the op's arity. Graph::add and AnyOp::infer call it, so a
/// built-in op's infer() never does; a user op whose infer() may be called directly can.
template <Operator Op>
void check_arity(std::span<TensorDesc const> in) {
  if (std::string why = arity_mismatch(Op::arity, in.size()); !why.empty()) throw ShapeError(std::string(Op::name) + " " + why);
}

/// Throws unless input i has the given rank.
template <Operator Op>
void check_rank(std::span<TensorDesc const> in, std::size_t i, std::size_t rank, std::string_view what) {
  if (in[i].shape.rank() != rank)
    throw ShapeError(std::string(Op::name) + ": input " + std::to_string(i) + " (" + std::string(what) + ") must be " +
                     std::to_string(rank) + "-D, got " + in[i].shape.to_string());
}

/// Throws unless every input has the dtype of input 0.
template <Operator Op>
void check_same_dtype(std::span<TensorDesc const> in) {
  for (std::size_t i = 1; i < in.size(); ++i)
    if (in[i].dtype != in[0].dtype)
      throw ShapeError(std::string(Op::name) + ": input " + std::to_string(i) + " is " + std::string(to_string(in[i].dtype)) +
                       " but input 0 is " + std::string(to_string(in[0].dtype)));
}

inline std::string ints(std::span<std::int64_t const> v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

}  // namespace detail
}  // namespace autograph
