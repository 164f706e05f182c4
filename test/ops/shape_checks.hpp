#pragma once
// What the operator tests check with: a float32 tensor description by shape, shape inference
// through AnyOp (as graphs infer: the input count is checked there, not in each op's infer()),
// and a refusal whose message must name the problem.
#include <autograph/ops/builtin.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace autograph::testing {

inline TensorDesc d(Shape s, DType t = DType::float32) { return {s, t}; }

template <class Op>
std::vector<TensorDesc> infer(Op const& op, std::vector<TensorDesc> in) {
  return AnyOp{op}.infer(in);
}

/// The op rejects the inputs with a ShapeError whose message contains `needle`.
template <class Op>
void expect_error(Op const& op, std::vector<TensorDesc> in, std::string const& needle) {
  try {
    AnyOp{op}.infer(in);
    ADD_FAILURE() << Op::name << ": expected a ShapeError containing '" << needle << "'";
  } catch (ShapeError const& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << "message: " << e.what();
  }
}

}  // namespace autograph::testing
