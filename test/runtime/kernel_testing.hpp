#pragma once
// Helpers for the reference-kernel tests: run one op's kernel on tensors, compare results.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/core/tensor.hpp"
#include "autograph/runtime/reference_kernel.hpp"

namespace autograph {
inline void PrintTo(Shape const& s, std::ostream* os) { *os << s.to_string(); }
}  // namespace autograph

namespace autograph::testing {

/// The message of the ExecutionError `f` throws ("" when it throws none).
template <class F>
std::string execution_error(F f) {
  try {
    f();
  } catch (ExecutionError const& e) {
    return e.what();
  }
  return "";
}

inline std::vector<TensorDesc> descs_of(std::vector<Tensor> const& in) {
  std::vector<TensorDesc> d;
  for (Tensor const& t : in) d.push_back({t.shape()});
  return d;
}

/// Expects the kernel to have returned exactly the inferred shapes. (Not a template: gtest
/// assertions are costly to instantiate once per op.)
inline void expect_shapes(std::vector<Tensor> const& out, std::vector<TensorDesc> const& want) {
  EXPECT_EQ(out.size(), want.size());
  for (std::size_t i = 0; i < out.size() && i < want.size(); ++i) EXPECT_EQ(out[i].shape(), want[i].shape) << "output " << i;
}

/// Runs reference::Kernel<Op> on `in`, with the output descriptors op.infer() gives; checks
/// the kernel returned exactly those shapes.
template <class Op>
std::vector<Tensor> run_kernel(Op const& op, std::vector<Tensor> const& in) {
  std::vector<TensorDesc> out_descs = op.infer(descs_of(in));
  std::vector<Tensor> out = reference::Kernel<Op>{}(op, in, out_descs);
  expect_shapes(out, out_descs);
  return out;
}

/// The single output of run_kernel.
template <class Op>
Tensor run1(Op const& op, std::vector<Tensor> const& in) {
  auto out = run_kernel(op, in);
  return out.empty() ? Tensor{} : out[0];
}

/// t has shape `s` and values within tol * max(1, |want|) of `want`.
inline ::testing::AssertionResult tensor_near(Tensor const& t, Shape const& s, std::vector<float> const& want, double tol = 1e-5) {
  if (t.shape() != s) return ::testing::AssertionFailure() << "shape " << t.shape().to_string() << ", expected " << s.to_string();
  auto got = t.data();
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " values, expected " << want.size();
  for (std::size_t i = 0; i < want.size(); ++i) {
    double g = got[i], w = want[i];
    bool same = (std::isnan(g) && std::isnan(w)) || g == w || std::fabs(g - w) <= tol * std::fmax(1.0, std::fabs(w));
    if (!same) return ::testing::AssertionFailure() << "value " << i << " is " << g << ", expected " << w;
  }
  return ::testing::AssertionSuccess();
}

/// 0, 1, 2, ... in a tensor of shape s.
inline Tensor iota(Shape s, float start = 0.f) {
  Tensor t(s);
  float v = start;
  for (float& x : t.mutable_data()) x = v++;
  return t;
}

}  // namespace autograph::testing
