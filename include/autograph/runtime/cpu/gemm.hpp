#pragma once
// The one matrix multiply the reference kernels use (OpenBLAS sgemm; link -lopenblas), and
// the epilogue Conv2D and MatMul share (bias, fused activation).
#include <cblas.h>

#include <cstdint>
#include <limits>
#include <string>

#include "autograph/core/error.hpp"
#include "autograph/ops/activation.hpp"

namespace autograph::cpu {

/// C = A B + beta C, row-major: A is m x k with row stride lda, B is k x n (ldb), C is m x n (ldc).
/// Empty products are handled here, so callers need no special cases (BLAS rejects ld < 1).
inline void gemm(std::int64_t m, std::int64_t n, std::int64_t k, float const* a, std::int64_t lda, float const* b, std::int64_t ldb,
                 float* c, std::int64_t ldc, float beta = 0.f) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // A B is all zeros
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.f ? 0.f : beta * c[i * ldc + j];
    return;
  }
  constexpr std::int64_t limit = std::numeric_limits<blasint>::max();
  if (m > limit || n > limit || k > limit || lda > limit || ldb > limit || ldc > limit)
    throw ExecutionError("gemm " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) +
                         " exceeds the BLAS integer range");
  auto i = [](std::int64_t v) { return static_cast<blasint>(v); };
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, i(m), i(n), i(k), 1.f, a, i(lda), b, i(ldb), beta, c, i(ldc));
}

/// y[r][j] = act(y[r][j] + bias[r]) for a rows x cols block; bias may be null (no bias).
inline void bias_activation(float* y, std::int64_t rows, std::int64_t cols, float const* bias, Activation act) {
  if (!bias && act == Activation::none) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    float b = bias ? bias[r] : 0.f;
    float* row = y + r * cols;
    for (std::int64_t j = 0; j < cols; ++j) row[j] = apply(act, row[j] + b);
  }
}

}  // namespace autograph::cpu
