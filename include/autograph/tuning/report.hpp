#pragma once
// The tuner's results and progress as text, for the command line: one progress line per round,
// and a table with one row per problem (default and tuned latency, speedup, trials, why it
// stopped) closed by the weighted total of Eq. 4 (sum of weight x latency) before and after.
#include <cstddef>
#include <cstdio>
#include <span>
#include <string>

#include "autograph/tuning/tuner.hpp"

namespace autograph::tuning {

/// "attention [b1 h8 s1050 d32] 1/2: 48 trials (96/400), best 0.412 ms, default 1.370 ms (x3.33)"
inline std::string format_progress(TuneProgress const& p) {
  char line[512];
  std::snprintf(line, sizeof line, "%s [%s] %zu/%zu: %zu trials (%zu/%zu), best %.3f ms, default %.3f ms (x%.2f)%s", std::string(p.kernel).c_str(),
                p.signature.c_str(), p.task + 1, p.tasks, p.task_trials, p.trials, p.budget, p.best_latency_s * 1e3, p.default_latency_s * 1e3,
                p.default_latency_s / p.best_latency_s, p.stop == TaskStop::running ? "" : ", stopped");
  return line;
}

/// The results as a table with a closing line of weighted totals.
template <TunableKernel K>
std::string format_results(std::span<TuneResult<K> const> results) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-32s %6s %12s %12s %8s %7s %7s  %s\n", "problem", "weight", "default ms", "tuned ms", "speedup", "trials", "reused",
                "stopped");
  out += line;
  double before = 0, after = 0;
  for (auto const& r : results) {
    std::snprintf(line, sizeof line, "%-32s %6g %12.4f %12.4f %7.2fx %7zu %7zu  %s\n", r.signature.c_str(), r.weight, r.default_latency_s * 1e3,
                  r.best_latency_s * 1e3, r.default_latency_s / r.best_latency_s, r.trials, r.reused, r.stop_reason.c_str());
    out += line;
    before += r.weight * r.default_latency_s;
    after += r.weight * r.best_latency_s;
  }
  std::snprintf(line, sizeof line, "weighted total (sum of weight x latency): %.4f ms -> %.4f ms (x%.2f)\n", before * 1e3, after * 1e3, before / after);
  out += line;
  return out;
}

}  // namespace autograph::tuning
