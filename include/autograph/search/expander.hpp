#pragma once
// RuleExpander: the rewrites the optimizer's searches explore (the `expand` of
// backtracking_search): every match of every rule not left out that a filter accepts, each
// applied alone, and on request the improving ones of one expansion applied together.
// It counts, per rule id, the matches found, the rewrites made and the time spent (see
// rule_stats.hpp) and adds them to a shared recorder once per call.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iterator>
#include <span>
#include <vector>

#include "autograph/rules/apply_independent.hpp"
#include "autograph/rules/engine.hpp"
#include "autograph/search/rewrite_trail.hpp"
#include "autograph/search/rule_stats.hpp"

namespace autograph {

/// What a RuleExpander is told, besides its engine.
struct ExpanderOptions {
  std::span<char const> left_out = {};              // left_out[rule] != 0: never emitted (empty: none left out)
  rules::RewriteOptions rewrite{};                  // how each rewrite is applied
  std::function<bool(rules::FoundMatch const&)> allow = {};  // empty: every match
  RuleStatsRecorder* stats = nullptr;               // where the per-rule counts go (none: not kept)
};

template <class Engine>
class RuleExpander {
 public:
  using Set = typename Engine::OpSet;

  /// @pre `engine` (and `options.left_out`, `options.stats`) outlive the expander.
  explicit RuleExpander(Engine const& engine, ExpanderOptions options = {})
      : engine_(&engine), options_(std::move(options)), local_(engine.size()) {}

  /// Calls emit(rewritten graph, rule id) once per applicable match, in the engine's order.
  /// @post the emitted matches are remembered for combine() on the same graph.
  template <class Emit>
  void operator()(Graph<Set> const& g, Emit&& emit) {
    emitted_.clear();
    auto found = engine_->find_matches_each_rule(g, [&](RuleId rule, rules::FunctionRef<void()> run) {
      auto t = Clock::now();
      run();
      local_[rule].match_seconds += seconds_since(t);
    });
    for (auto const& f : found) {
      ++local_[f.rule].matches;
      if (left_out(f.rule) || (options_.allow && !options_.allow(f))) continue;
      auto t = Clock::now();
      auto r = engine_->apply(g, f, options_.rewrite);
      local_[f.rule].apply_seconds += seconds_since(t);
      if (r) {
        ++local_[f.rule].rewrites;
        emitted_.push_back(f);
        emit(std::move(r->graph), RuleId{f.rule});
      }
    }
    flush();
  }

  /// `picks`: positions among the rewrites the last call emitted for `g`, best first.
  /// Emits them all applied together (where they do not interfere, the better first), and,
  /// when they come from several rules, each rule's picks together: where rewrites of two
  /// rules overlap, the one that improves more alone is not always the one to take.
  /// SqueezeNet: pulling two ReLUs through a Concat saves more than fusing one of them into
  /// its convolution, and blocks fusing both.
  /// @pre operator() was last called on `g`; every pick < the number of rewrites it emitted.
  template <class EmitMany>
  void combine(Graph<Set> const& g, std::span<std::size_t const> picks, EmitMany&& emit) {
    auto emit_together = [&](std::vector<rules::FoundMatch> const& chosen) {
      auto t = Clock::now();
      auto r = rules::apply_rebasing(*engine_, g, std::span<rules::FoundMatch const>(chosen), options_.rewrite);
      double share = seconds_since(t) / static_cast<double>(std::max<std::size_t>(1, r.applied.size()));
      if (r.applied.size() < 2) return;  // one rewrite alone was emitted already
      std::vector<RuleId> ids;
      for (std::size_t i : r.applied) {
        ids.push_back(chosen[i].rule);
        ++local_[chosen[i].rule].rewrites;
        local_[chosen[i].rule].apply_seconds += share;
      }
      emit(std::move(r.graph), std::span<RuleId const>(ids));
    };
    std::vector<rules::FoundMatch> chosen;
    std::vector<RuleId> rule_order;  // each rule once, in order of its best pick
    for (std::size_t p : picks) {
      chosen.push_back(emitted_.at(p));
      if (std::ranges::find(rule_order, chosen.back().rule) == rule_order.end()) rule_order.push_back(chosen.back().rule);
    }
    emit_together(chosen);
    if (rule_order.size() >= 2)
      for (RuleId rule : rule_order) {
        std::vector<rules::FoundMatch> same;
        std::ranges::copy_if(chosen, std::back_inserter(same), [&](rules::FoundMatch const& f) { return f.rule == rule; });
        emit_together(same);
      }
    flush();
  }

 private:
  using Clock = std::chrono::steady_clock;
  static double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }
  bool left_out(RuleId rule) const { return rule < options_.left_out.size() && options_.left_out[rule]; }
  void flush() {
    if (!options_.stats) return;
    options_.stats->add(local_);
    std::ranges::fill(local_, RuleStats{});
  }

  Engine const* engine_;
  ExpanderOptions options_;
  std::vector<RuleStats> local_;  // since the last flush, by rule id
  std::vector<rules::FoundMatch> emitted_;
};

}  // namespace autograph
