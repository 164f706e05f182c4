#pragma once
// The fastest configuration a tuning log holds for one device, kernel and problem: what a
// runtime runs once `autograph tune` has tuned the problem on this machine.
//
//   if (auto best = tuning::best_logged<cpu::tuned::Attention>(log, device, problem)) run(best->config);
//
// Needs no cost model (no XGBoost): reading a log is the runtime's side of tuning.
#include <optional>
#include <string>

#include "autograph/tuning/space.hpp"
#include "autograph/tuning/tuning_log.hpp"

namespace autograph::tuning {

template <TunableKernel K>
struct LoggedBest {
  typename K::Config config;
  double latency_s = 0;
};

/// The fastest valid record of `problem` on `device`; nullopt when the log has none. A record
/// whose knob values the kernel's space no longer offers (the kernel changed since it was
/// measured) or that the kernel now calls invalid is passed over, not trusted.
template <TunableKernel K>
std::optional<LoggedBest<K>> best_logged(TuningLog const& log, std::string const& device, typename K::Problem const& problem) {
  std::optional<LoggedBest<K>> best;
  auto const knobs = K::knobs(problem);
  for (LogRecord const* r : log.find(device, std::string(K::name), std::string(K::signature(problem)))) {
    if (best && r->latency_s >= best->latency_s) continue;
    auto choice = choice_of(knobs, r->knobs);
    if (!choice) continue;
    auto config = K::config(problem, *choice);
    if (!K::is_valid(problem, config)) continue;
    best = LoggedBest<K>{std::move(config), r->latency_s};
  }
  return best;
}

}  // namespace autograph::tuning
