#pragma once
// The task scheduler (AutoGTCO, section IV-C): several tasks (distinct problems, e.g. the fused
// subgraphs of a model) share one trial budget. The objective is the model's latency,
//   f = max[ sum_i w_i * max(g_i(t), ES(g_i, t)), L ]           (Eq. 4)
// with w_i the number of times task i occurs in the model, g_i(t) its best latency after t_i
// time units, ES early stopping and L a latency requirement. The allocation starts at
// t = (1, ..., 1) and then gives the next round to the task whose trials lower f fastest: the
// one with the most negative df/dt_i = w_i * dg_i/dt_i ("a scheduling algorithm based on
// gradient descent"). dg_i/dt_i is estimated as Ansor's task scheduler does (Zheng et al.,
// OSDI 2020, section 6): alpha times the backward difference over the last `window` rounds plus
// (1 - alpha) times the optimistic -g_i/t_i (as if the latency could still fall to 0 at the rate
// it fell so far); Ansor's third, similarity-based term needs similar tasks' throughputs and is
// left out. A task stops (its term of f is final: max(g_i, ES) = ES) when `early_stopping` trials
// brought no improvement, when it meets its latency requirement L_i, or when its space has
// nothing left to measure. Time units are trials.
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"

namespace autograph::tuning {

struct SchedulerOptions {
  double alpha = 0.2;                 // weight of the backward difference (Ansor's default)
  std::size_t window = 3;             // rounds of the backward difference (Ansor's backward_window_size)
  std::size_t early_stopping = 64;    // trials without an improvement after which a task stops; 0: never
  double min_improvement = 0.01;      // a new best counts as an improvement when at least 1% faster: below
                                      // that, a CPU measurement's run-to-run noise alone can produce it
};

enum class TaskStop {
  running,        // still tuned
  early_stopped,  // no improvement in the last `early_stopping` trials
  target_met,     // its latency requirement L_i is met
  exhausted,      // every valid configuration is measured
  budget,         // the shared trial budget ran out while it was running
};

class TaskScheduler {
 public:
  /// One task per weight (its number of occurrences, > 0); targets: a latency requirement per
  /// task in seconds, or none (an empty vector: none for every task).
  /// @throws Error naming the task whose weight or target is not positive and finite.
  explicit TaskScheduler(std::vector<double> weights, std::vector<std::optional<double>> targets = {}, SchedulerOptions options = {})
      : options_(options), tasks_(weights.size()) {
    if (!targets.empty() && targets.size() != weights.size())
      throw Error("task scheduler: " + std::to_string(targets.size()) + " latency targets for " + std::to_string(weights.size()) + " tasks");
    for (std::size_t i = 0; i < weights.size(); ++i) {
      if (!(weights[i] > 0) || !std::isfinite(weights[i]))
        throw Error("task scheduler: task " + std::to_string(i) + " has weight " + std::to_string(weights[i]) + " (must be positive and finite)");
      tasks_[i].weight = weights[i];
      if (!targets.empty() && targets[i]) {
        if (!(*targets[i] > 0) || !std::isfinite(*targets[i]))
          throw Error("task scheduler: task " + std::to_string(i) + " has latency target " + std::to_string(*targets[i]) + " s");
        tasks_[i].target = targets[i];
      }
    }
  }

  /// Task `task` measured `trials` more configurations; its best latency is now `best_latency_s`.
  void record(std::size_t task, std::size_t trials, double best_latency_s) {
    auto& t = tasks_.at(task);
    t.trials += trials;
    if (t.history.empty() || best_latency_s < t.improved_best * (1 - options_.min_improvement)) {
      t.improved_best = best_latency_s;
      t.last_improvement = t.trials;
    }
    t.history.push_back({t.trials, best_latency_s});
    if (t.stop != TaskStop::running) return;
    if (t.target && best_latency_s <= *t.target) t.stop = TaskStop::target_met;
    else if (options_.early_stopping && t.trials - t.last_improvement >= options_.early_stopping) t.stop = TaskStop::early_stopped;
  }
  /// Task `task` has nothing left to measure.
  void exhausted(std::size_t task) { finish(task, TaskStop::exhausted); }
  /// Marks a running task stopped for `why`.
  void finish(std::size_t task, TaskStop why) {
    if (tasks_.at(task).stop == TaskStop::running) tasks_[task].stop = why;
  }

  /// The task to give the next round: first every task once (t = (1, ..., 1), after the
  /// record of its starting point), then the one with the most negative df/dt_i. nullopt when
  /// every task has stopped.  @pre record() was called for every task once
  std::optional<std::size_t> next() const {
    std::optional<std::size_t> best;
    double best_gradient = 0;
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      if (tasks_[i].stop != TaskStop::running) continue;
      if (tasks_[i].history.size() < 2) return i;  // its first round
      double g = gradient(i);
      if (!best || g < best_gradient) best = i, best_gradient = g;
    }
    return best;
  }

  /// df/dt_i: the weight times the estimated change of the task's best latency per trial.
  /// @pre the task has a record
  double gradient(std::size_t task) const {
    auto const& t = tasks_.at(task);
    auto const& now = t.history.back();
    double forward = -now.best / static_cast<double>(std::max<std::size_t>(now.trials, 1));
    double backward = 0;
    if (t.history.size() > 1) {
      auto const& then = t.history[t.history.size() - 1 - std::min(options_.window, t.history.size() - 1)];
      if (now.trials > then.trials) backward = (now.best - then.best) / static_cast<double>(now.trials - then.trials);
    }
    return t.weight * (options_.alpha * backward + (1 - options_.alpha) * forward);
  }

  TaskStop stop(std::size_t task) const { return tasks_.at(task).stop; }
  std::size_t trials(std::size_t task) const { return tasks_.at(task).trials; }
  std::size_t size() const { return tasks_.size(); }

  /// "stopped early: no improvement of 1% in the last 64 trials", for reports.
  std::string describe_stop(std::size_t task) const {
    auto const& t = tasks_.at(task);
    switch (t.stop) {
      case TaskStop::running: return "running";
      case TaskStop::early_stopped:
        return "stopped early: no improvement of " + std::to_string(static_cast<int>(options_.min_improvement * 100 + 0.5)) + "% in the last " +
               std::to_string(t.trials - t.last_improvement) + " trials";
      case TaskStop::target_met: return "latency target of " + std::to_string(*t.target) + " s met";
      case TaskStop::exhausted: return "every valid configuration measured";
      case TaskStop::budget: return "trial budget spent";
    }
    return "unknown";  // unreachable: every enumerator returns above
  }

 private:
  struct Point {
    std::size_t trials;
    double best;
  };
  struct Task {
    double weight = 1;
    std::optional<double> target;
    std::size_t trials = 0;
    std::size_t last_improvement = 0;
    double improved_best = 0;
    std::vector<Point> history;  // after each record: trials so far and the best latency
    TaskStop stop = TaskStop::running;
  };
  SchedulerOptions options_;
  std::vector<Task> tasks_;
};

}  // namespace autograph::tuning
