#pragma once
// An inference BatchNorm's per-channel affine map, computed once for every kernel that runs
// one (the built-in BatchNorm of src/cpu/normalization.cpp and our elementwise chains of
// src/cpu/backends.cpp): y = (x - mean[c]) * a[c] + bias[c], a = scale / sqrt(var + eps), the
// reference kernel's formula (runtime/cpu/normalization.hpp), so all three round alike.
#include <cmath>
#include <cstdint>

namespace autograph::cpu::detail {

/// Writes mean, a and bias, C floats each, to out[0, C), out[C, 2C), out[2C, 3C).
inline void batch_norm_channels(float const* scale, float const* bias, float const* mean, float const* var, float eps, std::int64_t C,
                                float* out) {
  for (std::int64_t c = 0; c < C; ++c) {
    out[c] = mean[c];
    out[C + c] = scale[c] / std::sqrt(var[c] + eps);
    out[2 * C + c] = bias[c];
  }
}

}  // namespace autograph::cpu::detail
