#pragma once
// Why Optimizer::optimize() stopped, typed, with the numbers a report needs (egg's runner
// reports its stop reason the same way). describe() prints the sentence tools and the README
// show.
#include <cstddef>
#include <string>

namespace autograph {

enum class StopReason {
  round_limit,     // every measured round ran
  time_limit,      // the time limit was reached (between rounds, or within one: its verified gains are kept)
  no_improvement,  // a round measured nothing faster and left no rule out
  queue_empty,     // no improved graph was left to explore
  estimate_only,   // measure_rounds = 0: the best estimate, one round, no measured rounds
};

struct OptimizeStop {
  StopReason reason = StopReason::round_limit;
  std::size_t round = 0;      // round_limit: the limit; no_improvement: the round; queue_empty: the rounds run
  double time_limit_s = 0;    // time_limit: the limit

  std::string describe() const {
    switch (reason) {
      case StopReason::round_limit: return "round limit of " + std::to_string(round) + " reached";
      case StopReason::time_limit: return "time limit of " + std::to_string(time_limit_s) + " s reached";
      case StopReason::no_improvement: return "no measured improvement in round " + std::to_string(round);
      case StopReason::queue_empty: return "no improved graph left to explore after round " + std::to_string(round);
      case StopReason::estimate_only: return "estimated cost only (no measured rounds)";
    }
    return "unknown stop reason";  // unreachable: every enumerator returns above
  }
  friend bool operator==(OptimizeStop const&, OptimizeStop const&) = default;
};

inline std::string to_string(OptimizeStop const& s) { return s.describe(); }

}  // namespace autograph
