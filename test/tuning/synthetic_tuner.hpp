#pragma once
// tune<SyntheticMatmul>, compiled once in synthetic_tuner.cpp for every test file that runs it:
// its instantiation took ~3 s of CPU in each file that compiled it.
#include <autograph/tuning/tuner.hpp>

#include <functional>

#include "tuning/synthetic_kernel.hpp"

namespace autograph::tuning::testing {

using SyntheticMeasure = std::function<double(SyntheticMatmul::Config const&)>;
using SyntheticMeasureFactory = std::function<SyntheticMeasure(SyntheticMatmul::Problem const&)>;

std::vector<TuneResult<SyntheticMatmul>> tune_synthetic(std::vector<TuningTask<SyntheticMatmul>> const& tasks, std::size_t budget,
                                                        SyntheticMeasureFactory const& make_measure, TuneOptions const& options = {});

/// Measures the synthetic kernel's made-up latency.
inline SyntheticMeasureFactory synthetic_latency() {
  return [](SyntheticMatmul::Problem const& q) -> SyntheticMeasure { return [q](SyntheticMatmul::Config const& c) { return SyntheticMatmul::latency(q, c); }; };
}

}  // namespace autograph::tuning::testing
