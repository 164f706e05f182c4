#pragma once
// Outputs of the CPU runtime against the reference executor's, by the normwise relative error
// the correctness criterion names (<= 1e-4 for whole models).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "autograph/core/tensor.hpp"

namespace autograph::test {

/// ||got - want|| / ||want|| (the norms over all elements), or the absolute norm when want is 0.
inline double normwise_error(Tensor const& got, Tensor const& want) {
  auto a = got.data(), b = want.data();
  if (a.size() != b.size()) return INFINITY;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += (double(a[i]) - b[i]) * (double(a[i]) - b[i]);
    norm += double(b[i]) * b[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

inline ::testing::AssertionResult matches(std::vector<Tensor> const& got, std::vector<Tensor> const& want, double tolerance) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " outputs, expected " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i].shape() != want[i].shape())
      return ::testing::AssertionFailure() << "output " << i << " has shape " << got[i].shape().to_string() << ", expected "
                                           << want[i].shape().to_string();
    double e = normwise_error(got[i], want[i]);
    if (!(e <= tolerance)) return ::testing::AssertionFailure() << "output " << i << ": normwise relative error " << e << " > " << tolerance;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace autograph::test
