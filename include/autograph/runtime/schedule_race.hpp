#pragma once
// Choosing between two schedules of one graph by racing them. A measuring runtime that can
// run a graph two ways (the CPU runtime: a stream per core or one stream with every core per
// kernel) learns which is faster only by timing both, and a search asks this of every
// candidate graph it measures: the runs of the schedule that loses are a cost of the search
// that changes no decision once the loser is known. So the two are timed interleaved in
// blocks (drift in clock speed or load hits both alike), the one slower beyond the noise
// margin is dropped as soon as the evidence says so — settled_verdict, the margin the
// optimizer's decisions use (runtime/noise.hpp) — and the other runs on alone, as a single
// schedule's measurement would.
//
// A graph derived from one whose race settled (a search's candidate and the graph it was
// rewritten from: one family) may take its parent's choice without timing the parent's loser
// at all (race_schedules, `parent`). Why that is safe:
//  - What the search reads is still a measurement: the child's latency under a schedule it
//    really runs with, and the runtime keeps running it with that schedule. The error an
//    inherited choice can make is one-sided: the child might have run faster under the other
//    schedule, so an improvement that exists only there can be missed; a candidate is never
//    credited with a latency it does not have.
//  - The parent's winner led by at least L ms (the low end of the interval settled_verdict
//    decided on). The child inherits only while its own median under that schedule lies
//    within L/2 of the parent's. If the child's rewrites change the loser's latency by no
//    more than they change the winner's, the loser still trails by at least
//    L - 2 * (L/2) > 0; a rewrite that moves the winner by L/2 or more has the child raced.
//  - A choice is inherited from a raced parent only, never from an inherited one (the
//    runtime races a family's parent first when its own choice was inherited), so an error
//    cannot compound down a chain of rounds; and the graph a search returns is raced again
//    with full runs before it is reported (CpuRuntime::replan).
#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/runtime/noise.hpp"

namespace autograph {

struct RaceOptions {
  std::size_t max_runs = 50;     // timed runs of either schedule at most
  std::size_t block = 5;         // runs per turn while both are timed
  bool survivor_runs_on = true;  // after a drop the faster runs on until done (its latency is wanted), or stops (only the choice is)
};

/// What a graph's choice of schedule rests on.
enum class ChoiceBasis {
  raced,      // both schedules timed, interleaved
  inherited,  // the parent's winner only, the other not timed (race_schedules' `parent`)
};

/// The outcome of race_schedules: which of the two schedules (first, second) runs the graph.
struct ScheduleChoice {
  bool second = false;  // the second schedule won
  ChoiceBasis basis = ChoiceBasis::raced;
  bool settled = false;  // raced, and the loser dropped: slower beyond the noise margin
  bool declined = false;  // raced although a settled parent was given: the probe's median lay L/2 or more from the parent's
  double chosen_ms = std::numeric_limits<double>::quiet_NaN();  // medians
  double other_ms = std::numeric_limits<double>::quiet_NaN();   // NaN: not timed (inherited)
  double lead_ms = 0;  // settled: the winner's lead at least (the low end of its interval); else 0
  std::size_t chosen_runs = 0, other_runs = 0;  // timed runs of each
};

/// What choosing schedules cost a runtime, over all its races.
struct ScheduleChoiceStats {
  std::size_t raced = 0;        // graphs whose two schedules were timed against each other
  std::size_t settled = 0;      // of them, races that dropped the loser (slower beyond noise)
  std::size_t inherited = 0;    // graphs that took their parent's choice, the other schedule never timed
  std::size_t declined = 0;     // graphs raced although their parent's race had settled: their rewrites moved them L/2 or more
  std::size_t losing_runs = 0;  // timed runs of the schedule that was not chosen
  double losing_seconds = 0;    // wall seconds those runs and their schedule's preparation took
};

/// Races two schedules of one graph. `time_a(n)` and `time_b(n)` return n timed runs' ms of
/// each (a timer may prepare its schedule on its first call: a schedule never timed then costs
/// nothing); `done(samples)` says whether one schedule's runs suffice (a run budget, a
/// deadline, a bound it is clearly above); neither takes more than `options.max_runs` runs.
///
/// While both run they take turns of `options.block` runs. After each turn a schedule slower
/// than the other beyond the noise margin — settled_verdict(slower, faster) says "faster" — is
/// dropped and the other runs on alone, one run at a time, until done (with
/// survivor_runs_on). When neither is dropped both run until both are done: the lower median
/// wins (there is no incumbent to protect; within noise either is as good).
///
/// `parent`: the choice of the graph this one was derived from. When it was raced and settled
/// with a lead L, the parent's winner runs one block first, and when its median lies within
/// L/2 of the parent's the choice is inherited (the header's comment says why that is safe);
/// otherwise the race goes on from those samples.
template <class TimeA, class TimeB, class Done>
  requires std::invocable<TimeA&, std::size_t> && std::invocable<TimeB&, std::size_t> && std::predicate<Done&, std::vector<double> const&>
ScheduleChoice race_schedules(TimeA&& time_a, TimeB&& time_b, Done&& done, ScheduleChoice const* parent = nullptr, RaceOptions const& options = {}) {
  std::vector<double> s[2];
  auto time = [&](int side, std::size_t n) {
    n = std::min(n, options.max_runs - std::min(options.max_runs, s[side].size()));
    if (n == 0) return;
    std::vector<double> got = side ? time_b(n) : time_a(n);
    s[side].insert(s[side].end(), got.begin(), got.end());
  };
  auto finished = [&](int side) { return s[side].size() >= options.max_runs || done(s[side]); };
  auto result = [&](int winner, ChoiceBasis basis, bool settled) {
    ScheduleChoice c;
    c.second = winner == 1;
    c.basis = basis;
    c.settled = settled;
    c.chosen_ms = detail::median_of(s[winner]);
    if (!s[1 - winner].empty()) c.other_ms = detail::median_of(s[1 - winner]);
    c.chosen_runs = s[winner].size();
    c.other_runs = s[1 - winner].size();
    return c;
  };
  auto run_on = [&](int side) {
    if (options.survivor_runs_on)
      while (!finished(side)) time(side, 1);
  };

  if (parent && parent->basis == ChoiceBasis::raced && parent->settled && parent->lead_ms > 0) {
    int w = parent->second ? 1 : 0;
    time(w, options.block);
    if (std::abs(detail::median_of(s[w]) - parent->chosen_ms) < parent->lead_ms / 2) {
      run_on(w);
      return result(w, ChoiceBasis::inherited, false);
    }
  }
  bool declined = !s[0].empty() || !s[1].empty();
  while (true) {
    std::size_t before = s[0].size() + s[1].size();
    if (s[0].size() <= s[1].size()) time(0, options.block);
    if (s[1].size() < s[0].size()) time(1, s[0].size() - s[1].size());
    for (int loser : {0, 1}) {
      int winner = 1 - loser;
      if (settled_verdict(s[loser], s[winner]) != Verdict::faster) continue;
      run_on(winner);
      ScheduleChoice c = result(winner, ChoiceBasis::raced, true);
      c.declined = declined;
      auto [lead, half] = lead_interval(s[loser], s[winner]);
      c.lead_ms = std::max(0.0, lead - half);  // with every run of the winner's
      return c;
    }
    bool stuck = s[0].size() + s[1].size() == before;  // a timer that gave no runs: nothing more to learn
    if (stuck || (finished(0) && finished(1))) {
      ScheduleChoice c = result(detail::median_of(s[1]) < detail::median_of(s[0]) ? 1 : 0, ChoiceBasis::raced, false);
      c.declined = declined;
      return c;
    }
  }
}

/// A measuring runtime that carries schedule choices from a graph to the graphs derived from
/// it: between set_family(parent) and end_family(), a graph it has not measured before is
/// treated as a child of `parent` (race_schedules' `parent`).
template <class R, class Set = BuiltinOps>
concept FamilyRuntime = requires(R& r, Graph<Set> const& g) {
  r.set_family(g);
  r.end_family();
};

}  // namespace autograph
