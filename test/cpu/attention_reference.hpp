#pragma once
// The tuned attention kernel's tests: a naive reference (scores, softmax and products in double,
// the whole score matrix in memory) over the same problem description, and a runner that gives
// the kernel its workspace.
#include <cmath>
#include <limits>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/cpu/tuned/attention.hpp"

namespace autograph::cpu::testing {

/// softmax(scale * q @ kT + mask) @ v, row by row, as the unfused ops compute it.
inline std::vector<float> naive_attention(tuned::AttentionProblem const& p, std::vector<float> const& q, std::vector<float> const& k,
                                          std::vector<float> const& v, std::vector<float> const& mask) {
  std::vector<float> out(static_cast<std::size_t>(p.batch * p.tq * p.dv));
  std::vector<double> s(static_cast<std::size_t>(p.tk));
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t i = 0; i < p.tq; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      for (std::int64_t t = 0; t < p.tk; ++t) {
        double dot = 0;
        for (std::int64_t x = 0; x < p.d; ++x)
          dot += double(q[(b * p.tq + i) * p.d + x]) * k[b * p.k_stride_batch + x * p.k_stride_d + t * p.k_stride_t];
        s[t] = p.scale * dot;
        if (p.has_mask)
          s[t] += mask[(b / p.mask_inner) * p.mask_stride_outer + (b % p.mask_inner) * p.mask_stride_inner + i * p.mask_stride_q + t * p.mask_stride_k];
        m = std::max(m, s[t]);
      }
      double sum = 0;
      for (std::int64_t t = 0; t < p.tk; ++t) sum += (s[t] = std::exp(s[t] - m));
      for (std::int64_t j = 0; j < p.dv; ++j) {
        double acc = 0;
        for (std::int64_t t = 0; t < p.tk; ++t) acc += s[t] * v[(b * p.tk + t) * p.dv + j];
        out[(b * p.tq + i) * p.dv + j] = static_cast<float>(acc / sum);
      }
    }
  return out;
}

inline std::vector<float> random_floats(std::int64_t n, std::uint64_t seed) {
  Tensor t = Tensor::random(Shape{n}, seed, -1.f, 1.f);
  return {t.data().begin(), t.data().end()};
}

inline std::vector<float> run_tuned(tuned::AttentionProblem const& p, tuned::AttentionConfig const& c, std::vector<float> const& q,
                                    std::vector<float> const& k, std::vector<float> const& v, std::vector<float> const& mask) {
  std::vector<float> out(static_cast<std::size_t>(p.batch * p.tq * p.dv), std::numeric_limits<float>::quiet_NaN());
  std::vector<float> workspace(tuned::attention_workspace_floats(p, c), std::numeric_limits<float>::quiet_NaN());
  tuned::attention(p, c, q.data(), k.data(), v.data(), p.has_mask ? mask.data() : nullptr, out.data(), workspace);
  return out;
}

/// ||got - want|| / ||want||; infinite when a got value is NaN where want's is not.
inline double normwise_error(std::vector<float> const& got, std::vector<float> const& want) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(got[i]) != std::isnan(want[i])) return std::numeric_limits<double>::infinity();
    if (std::isnan(want[i])) continue;
    diff += (double(got[i]) - want[i]) * (double(got[i]) - want[i]);
    norm += double(want[i]) * want[i];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

}  // namespace autograph::cpu::testing
