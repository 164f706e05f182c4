#pragma once
// The AutoGTCO performance tuner (section IV, tensor level) for a TunableKernel: every problem
// (a distinct shape of the kernel, weighted by how often the model runs it) starts from the
// kernel's default configuration, then rounds of `batch` measurements go to the problem the task
// scheduler picks (task_scheduler.hpp, Eq. 4); a round retrains the problem's cost model on all
// its measurements (cost_model.hpp: a rank loss, or Eq. 5's) and measures the batch the evolutionary search
// proposes (evolutionary_search.hpp). Measurements go to the tuning log (tuning_log.hpp); what
// the log already holds for this device and problem is read first and never measured again.
//
// The tuner never measures anything itself: `make_measure(problem)` returns the callable
// `double measure(Config const&)` (seconds) for that problem, so a test can tune a synthetic
// objective and the CLI real kernels. Invalid configurations (K::is_valid false) are never
// passed to it.
//
//   auto results = tuning::tune<Attention>({{small, 12}, {large, 12}}, 400,    // any TunableKernel
//       [&](auto const& p) { return [&, p](auto const& c) { return time_kernel(p, c); }; },
//       {.device = cpu::cpu_model_name(), .log = &log, .progress = print});
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/tuning/cost_model.hpp"
#include "autograph/tuning/evolutionary_search.hpp"
#include "autograph/tuning/random_annotation.hpp"
#include "autograph/tuning/space.hpp"
#include "autograph/tuning/task_scheduler.hpp"
#include "autograph/tuning/tuning_log.hpp"

namespace autograph::tuning {

/// How a round chooses what to measure.
enum class SearchPolicy {
  evolutionary,  // the cost model's best predictions from the evolutionary search (the tuner)
  random,        // uniform random valid configurations (random search: the baseline)
};

/// One problem to tune and how often the model runs it.
template <TunableKernel K>
struct TuningTask {
  // A constructor rather than an aggregate: `{problem, 12}` with the target left out would
  // trip GCC's -Wmissing-field-initializers in every caller.
  TuningTask(typename K::Problem p, double w = 1, std::optional<double> target = std::nullopt)
      : problem(std::move(p)), weight(w), target_latency_s(target) {}
  typename K::Problem problem;
  double weight = 1;                        // occurrences in the model: Eq. 4's w_i
  std::optional<double> target_latency_s;   // stop once this fast: Eq. 4's L_i
};

/// What the tuner reports after each round (the CLI prints it).
struct TuneProgress {
  std::string_view kernel;          // K::name
  std::string signature;
  std::size_t task = 0, tasks = 0;
  std::size_t task_trials = 0;      // this problem's measurements in this run
  std::size_t trials = 0;           // all problems' measurements in this run
  std::size_t budget = 0;
  double best_latency_s = 0;
  double default_latency_s = 0;
  TaskStop stop = TaskStop::running;  // this problem's state after the round
};

struct TuneOptions {
  std::size_t batch = 16;           // measurements per round; the model is retrained every round, so a budget of a few
                                    // hundred trials gives it a dozen rounds (Ansor measures 64 per round over thousands)
  SearchPolicy policy = SearchPolicy::evolutionary;
  SearchOptions search = {};
  CostModelOptions model = {};
  SchedulerOptions scheduler = {};
  std::string device = "unknown device";  // the tuning log's key, e.g. cpu::cpu_model_name()
  TuningLog* log = nullptr;               // read first, appended to as measurements arrive; none: nothing kept
  std::uint64_t seed = 1;
  std::function<void(TuneProgress const&)> progress = {};
};

template <TunableKernel K>
struct TuneResult {
  std::string signature;
  double weight = 1;
  std::size_t trials = 0;            // measured in this run (the default included, unless the log knew it)
  std::size_t reused = 0;            // measurements read from the log
  typename K::Config best_config;
  double best_latency_s = 0;
  typename K::Config default_config;
  double default_latency_s = 0;
  std::vector<double> best_so_far;   // the best latency known after each trial of this run
  TaskStop stop = TaskStop::running;
  std::string stop_reason;
};

namespace detail {
template <TunableKernel K>
struct TaskState {
  struct Measured {
    typename K::Config config;
    std::optional<Choice> choice;  // none for a default off the grid
    std::vector<float> features;
    double latency_s;
  };
  typename K::Problem const* problem;
  std::string signature;
  std::vector<Knob> knobs;
  std::function<double(typename K::Config const&)> measure;
  std::vector<Measured> measured;
  std::unordered_set<std::string> known;  // to_string() of every measured configuration
  std::size_t best = 0;                   // index into measured
  std::optional<std::size_t> default_index;
  std::size_t trials = 0, reused = 0;
  std::vector<double> curve;
  GradientBoostedCostModel model;
  std::mt19937_64 rng;

  std::string describe() const { return std::string(K::name) + " [" + signature + "]"; }

  void add(typename K::Config config, std::optional<Choice> choice, double latency_s) {
    auto f = K::features(*problem, config);
    if (f.empty()) throw Error("tuning " + describe() + ": features() gave no values for " + std::string(K::to_string(config)));
    if (!measured.empty() && f.size() != measured.front().features.size())
      throw Error("tuning " + describe() + ": features() gave " + std::to_string(f.size()) + " values for " +
                  std::string(K::to_string(config)) + ", " + std::to_string(measured.front().features.size()) + " for others");
    known.insert(std::string(K::to_string(config)));
    measured.push_back({std::move(config), std::move(choice), std::move(f), latency_s});
    if (measured.size() == 1 || latency_s < measured[best].latency_s) best = measured.size() - 1;
  }
};
}  // namespace detail

/// Tunes every task's problem within `budget` measurements in all (the default configurations
/// included), returning one result per task in order.
/// @throws Error naming the kernel and problem for an empty space, a default configuration the
/// kernel calls invalid, features() of no or of varying length, a measurement that is not a
/// positive finite number of seconds, a weight or latency target that is not positive, or a
/// budget too small to measure every default; and the log's errors (file and line).
template <TunableKernel K, class MeasureFactory>
  requires std::invocable<MeasureFactory&, typename K::Problem const&>
std::vector<TuneResult<K>> tune(std::vector<TuningTask<K>> const& tasks, std::size_t budget, MeasureFactory&& make_measure,
                                TuneOptions const& options = {}) {
  using Config = typename K::Config;
  std::string const kernel(K::name);
  if (tasks.empty()) throw Error("tuning " + kernel + ": no problems to tune");
  if (options.batch == 0) throw Error("tuning " + kernel + ": the batch size must be at least 1");
  std::vector<double> weights;
  std::vector<std::optional<double>> targets;
  for (auto const& t : tasks) {
    auto fail = [&](std::string const& why) { throw Error("tuning " + describe_problem<K>(t.problem) + ": " + why + " (must be positive and finite)"); };
    if (!(t.weight > 0) || !std::isfinite(t.weight)) fail("weight " + std::to_string(t.weight));
    if (t.target_latency_s && (!(*t.target_latency_s > 0) || !std::isfinite(*t.target_latency_s)))
      fail("latency target " + std::to_string(*t.target_latency_s) + " s");
    weights.push_back(t.weight), targets.push_back(t.target_latency_s);
  }
  TaskScheduler scheduler(weights, targets, options.scheduler);

  std::vector<detail::TaskState<K>> states(tasks.size());
  std::size_t defaults_to_measure = 0;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    auto& s = states[i];
    auto const& p = tasks[i].problem;
    s.problem = &p;
    s.signature = std::string(K::signature(p));
    s.knobs = K::knobs(p);
    check_space<K>(p, s.knobs);
    s.model = GradientBoostedCostModel(options.model);
    s.rng.seed(options.seed * 0x9E3779B97F4A7C15ull + i);
    Config def = K::default_config(p);
    if (!K::is_valid(p, def))
      throw Error("tuning " + s.describe() + ": the default configuration " + std::string(K::to_string(def)) + " is not valid for it");
    std::string const default_key(K::to_string(def));
    if (options.log) {
      for (LogRecord const* r : options.log->find(options.device, kernel, s.signature)) {
        std::optional<Choice> c = choice_of(s.knobs, r->knobs);
        std::optional<Config> config;
        if (c) config = K::config(p, *c);
        else if (r->config == default_key) config = def;  // a default off the grid
        if (!config || !K::is_valid(p, *config) || s.known.contains(std::string(K::to_string(*config)))) continue;  // another space's point
        s.add(std::move(*config), std::move(c), r->latency_s);
        ++s.reused;
      }
    }
    if (!s.known.contains(default_key)) ++defaults_to_measure;
    for (std::size_t m = 0; m < s.measured.size(); ++m)
      if (std::string(K::to_string(s.measured[m].config)) == default_key) s.default_index = m;
    s.measure = make_measure(p);
  }
  if (budget < defaults_to_measure)
    throw Error("tuning " + kernel + ": a budget of " + std::to_string(budget) + " trials cannot measure the default configuration of " +
                std::to_string(defaults_to_measure) + " problems");

  std::size_t spent = 0;
  auto measure_one = [&](detail::TaskState<K>& s, Config config, std::optional<Choice> choice) {
    std::string text(K::to_string(config));
    if (!K::is_valid(*s.problem, config))  // the search proposes valid choices only; a kernel whose is_valid changed its mind is a bug
      throw Error("tuning " + s.describe() + ": internal error: about to measure the invalid configuration " + text);
    double latency;
    try {
      latency = s.measure(config);
    } catch (std::exception const& e) {  // the measuring's own error, with the configuration it was measuring
      throw Error("tuning " + s.describe() + ": measuring " + text + " failed: " + e.what());
    }
    if (!(latency > 0) || !std::isfinite(latency))
      throw Error("tuning " + s.describe() + ": measuring " + text + " gave " + std::to_string(latency) + " s (must be positive and finite)");
    if (options.log)
      options.log->append({options.device, kernel, s.signature, choice ? knob_values(s.knobs, *choice) : std::vector<std::pair<std::string, std::int64_t>>{},
                           text, latency, utc_now()});
    s.add(std::move(config), std::move(choice), latency);
    ++s.trials;
    ++spent;
    s.curve.push_back(s.measured[s.best].latency_s);
  };
  auto report = [&](std::size_t i) {
    if (!options.progress) return;
    auto const& s = states[i];
    options.progress({K::name, s.signature, i, tasks.size(), s.trials, spent, budget, s.measured[s.best].latency_s,
                      s.measured[*s.default_index].latency_s, scheduler.stop(i)});
  };

  // The starting point of each task (t = 1): its default configuration, and what the log knew.
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    auto& s = states[i];
    if (!s.default_index) {
      Config def = K::default_config(*s.problem);
      auto choice = find_choice<K>(*s.problem, s.knobs, def);
      measure_one(s, std::move(def), std::move(choice));
      s.default_index = s.measured.size() - 1;
    }
    scheduler.record(i, s.measured.size(), s.measured[s.best].latency_s);
    report(i);
  }

  // Rounds, to the task the scheduler picks, until the budget is spent or every task stopped.
  while (spent < budget) {
    auto next = scheduler.next();
    if (!next) break;
    auto& s = states[*next];
    auto const& p = *s.problem;
    std::size_t n = std::min(options.batch, budget - spent);
    auto is_known = [&](Choice const& c) { return s.known.contains(std::string(K::to_string(K::config(p, c)))); };
    std::vector<Choice> batch;
    if (options.policy == SearchPolicy::evolutionary && s.measured.size() > 1) {
      std::vector<float> rows;
      std::vector<double> latencies;
      for (auto const& m : s.measured) rows.insert(rows.end(), m.features.begin(), m.features.end()), latencies.push_back(m.latency_s);
      s.model.fit(rows, s.measured.front().features.size(), latencies);
      std::vector<Choice> best_first;
      std::vector<std::size_t> order(s.measured.size());
      for (std::size_t m = 0; m < order.size(); ++m) order[m] = m;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.measured[a].latency_s < s.measured[b].latency_s; });
      for (std::size_t m : order)
        if (s.measured[m].choice) best_first.push_back(*s.measured[m].choice);
      batch = propose_batch<K>(p, s.knobs, best_first, s.model, is_known, n, s.rng, options.search);
    } else {
      batch = random_batch<K>(p, s.knobs, is_known, n, s.rng, options.search.max_tries);
    }
    for (auto& c : batch) {
      Config config = K::config(p, c);
      measure_one(s, std::move(config), std::move(c));
    }
    if (batch.empty()) scheduler.exhausted(*next);
    else scheduler.record(*next, batch.size(), s.measured[s.best].latency_s);
    report(*next);
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) scheduler.finish(i, TaskStop::budget);

  std::vector<TuneResult<K>> results;
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    auto& s = states[i];
    results.push_back(TuneResult<K>{s.signature, tasks[i].weight, s.trials, s.reused, s.measured[s.best].config, s.measured[s.best].latency_s,
                                    s.measured[*s.default_index].config, s.measured[*s.default_index].latency_s, std::move(s.curve),
                                    scheduler.stop(i), scheduler.describe_stop(i)});
  }
  return results;
}

}  // namespace autograph::tuning
