#include "tuning/synthetic_tuner.hpp"

namespace autograph::tuning::testing {

std::vector<TuneResult<SyntheticMatmul>> tune_synthetic(std::vector<TuningTask<SyntheticMatmul>> const& tasks, std::size_t budget,
                                                        SyntheticMeasureFactory const& make_measure, TuneOptions const& options) {
  return tune<SyntheticMatmul>(tasks, budget, make_measure, options);
}

}  // namespace autograph::tuning::testing
