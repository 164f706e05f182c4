#pragma once
// Per-rule statistics of a search, as egg's runner reports them: for every rule, the matches
// found, the rewrites it produced (candidate graphs), its applications in the result, and the
// time spent matching and applying. Collected by rule id (the engine's numbering); names are
// filled in once, when the search returns.
#include <cstddef>
#include <cstdio>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace autograph {

struct RuleStats {
  std::string name;
  std::size_t matches = 0;       // matches found in every graph expanded or probed
  std::size_t rewrites = 0;      // candidate graphs made with it (alone, combined, or in a probe)
  std::size_t applications = 0;  // its rewrites in the returned graph
  double match_seconds = 0;
  double apply_seconds = 0;      // a combined rewrite's time is shared evenly among its rules

  RuleStats& operator+=(RuleStats const& o) {
    matches += o.matches;
    rewrites += o.rewrites;
    applications += o.applications;
    match_seconds += o.match_seconds;
    apply_seconds += o.apply_seconds;
    return *this;
  }
};

/// Statistics that searches on several threads add to: each search counts locally and adds
/// once per expansion, so the lock is taken rarely.
class RuleStatsRecorder {
 public:
  explicit RuleStatsRecorder(std::size_t rules = 0) : stats_(rules) {}
  /// @pre local.size() == the number of rules
  void add(std::span<RuleStats const> local) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = 0; i < local.size() && i < stats_.size(); ++i) stats_[i] += local[i];
  }
  std::vector<RuleStats> take() {
    std::lock_guard lock(mutex_);
    return std::move(stats_);
  }

 private:
  std::mutex mutex_;
  std::vector<RuleStats> stats_;
};

/// The report as a table, one line per rule that matched at least once, in rule order.
inline std::string format_rule_report(std::span<RuleStats const> stats) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "%-28s %10s %10s %8s %10s %10s\n", "rule", "matches", "rewrites", "applied", "match s", "apply s");
  out += line;
  for (auto const& s : stats) {
    if (s.matches == 0 && s.applications == 0) continue;
    std::snprintf(line, sizeof line, "%-28s %10zu %10zu %8zu %10.4f %10.4f\n", s.name.c_str(), s.matches, s.rewrites, s.applications,
                  s.match_seconds, s.apply_seconds);
    out += line;
  }
  return out;
}

}  // namespace autograph
