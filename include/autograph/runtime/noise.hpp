#pragma once
// Deciding "faster" from measurements that carry noise. A simulator's latencies are exact, so
// `<` decides; a measured runtime's are samples, and a search that keeps whichever graph
// happened to time lower would keep noise. A runtime that measures offers
//
//   Comparison compare(Graph const& incumbent, Graph const& challenger);
//
// which re-measures both, interleaved (so that drift in clock speed or load hits both
// alike), and calls the challenger faster only when its median is lower by more than a noise
// margin derived from the samples themselves (compare_samples below) and from the spread
// between the interleaved blocks (BlockLeads: the machine's speed drifts between blocks). The optimizer uses it,
// where the runtime has it, for every decision a measurement makes: a candidate improving on
// the best graph, a rule left out for slowing the graph down.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <concepts>
#include <numbers>
#include <string>
#include <vector>

#include "autograph/graph/graph.hpp"

namespace autograph {

struct Comparison {
  double incumbent_ms = 0;   // median
  double challenger_ms = 0;  // median
  double margin_ms = 0;      // how much lower the challenger's median must be to count as faster
  bool faster = false;       // the challenger is faster beyond the margin
  std::size_t runs = 0;      // timed runs per side behind the medians (interleaved_compare may stop early)
  bool screened_out = false; // a screening comparison stopped at its first look: the challenger was behind
};

/// How a comparison is used. `screen`: the challenger is one of a search's many candidates,
/// most of them no faster, and the comparison is how each is first measured: one behind the
/// incumbent at the first look (after max(block, min_runs) interleaved runs a side, its median
/// not below the incumbent's) is "not faster" there and then. A challenger truly faster by a
/// margin the full comparison could show is behind there only when the machine slowed down
/// during its runs by more than that margin; the error costs a missed gain, never a false one,
/// and the runs it saves are most of a comparison's (5 a side instead of up to 50 on the CPU).
struct CompareOptions {
  bool screen = false;
  std::size_t min_runs = 0;  // runs a side before the first look (a verdict, a screen, `stop`); 0: one block
};

namespace detail {
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::ranges::sort(v);
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
/// The standard error of a sample median: 1.2533 σ / √n for a normal population (the
/// asymptotic variance of the median, π σ² / 2n), with σ estimated robustly as 1.4826 × the
/// median absolute deviation, so that a few outliers (a preempted run) do not widen it.
inline double median_standard_error(std::vector<double> const& v) {
  if (v.size() < 2) return INFINITY;
  double m = median_of(v);
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::abs(x - m));
  double sigma = 1.4826 * median_of(dev);
  return 1.2533 * sigma / std::sqrt(static_cast<double>(v.size()));
}
/// How much wider a look before the last one counts a standard error: the MAD-based σ of n
/// samples is itself uncertain by about 1.16/√n of its value (the MAD's efficiency at the
/// normal is 37%, var σ̂ ≈ σ² / (2 × 0.37 n)), so an early look takes the standard error one
/// of its own standard errors larger (×1.52 at n = 5, ×1.16 at n = 50): a look stays as strict
/// as the z = 3 test even when its standard error came out one standard error too small, and
/// with a typical estimate it is far stricter (z ≈ 4.1 at n = 10, a wrong verdict about 1 in
/// 50,000 per look), so the up to ten looks of 50 runs in blocks of 5 do not add up to more
/// wrong verdicts than the one full test makes.
inline double early_look_factor(std::size_t n) { return 1 + 1.16 / std::sqrt(static_cast<double>(n)); }

/// P(|T| < t) for Student's t with `df` degrees of freedom, by the closed forms for whole df
/// (with θ = atan(t/√df): odd df (2/π)(θ + sinθ cosθ Σ), even df sinθ Σ, each Σ a finite
/// series in cos²θ).
inline double student_t_central(double t, int df) {
  double const theta = std::atan(t / std::sqrt(static_cast<double>(df))), c2 = std::cos(theta) * std::cos(theta);
  double term = 1, sum = 1;
  if (df % 2 == 1) {
    for (int k = 1; k < (df - 1) / 2; ++k) sum += term *= 2.0 * k / (2.0 * k + 1) * c2;
    return df == 1 ? 2 / std::numbers::pi * theta : 2 / std::numbers::pi * (theta + std::sin(theta) * std::cos(theta) * sum);
  }
  for (int k = 1; k < df / 2; ++k) sum += term *= (2.0 * k - 1) / (2.0 * k) * c2;
  return std::sin(theta) * sum;
}
/// The t quantile with the one-sided tail of the normal's z (z = 3: 0.135%), for `df` >= 1:
/// 19.2 at df 2, 4.09 at df 9, z itself as df grows. By bisection on student_t_central.
inline double student_t_like_z(double z, int df) {
  double const central = std::erf(z / std::sqrt(2.0));  // P(|Z| < z)
  double lo = 0, hi = 1e4;
  for (int i = 0; i < 100; ++i) (student_t_central((lo + hi) / 2, df) < central ? lo : hi) = (lo + hi) / 2;
  return (lo + hi) / 2;
}
}  // namespace detail

/// The challenger's lead over the incumbent in each pair of interleaved blocks (median of the
/// incumbent's block − median of the challenger's), and from their spread the half width of
/// an interval of the lead: what the samples pooled cannot show. On a shared machine the
/// speed moves for seconds at a time, so two blocks timed a second apart can differ by more
/// than all the runs inside either block: one pair of blocks that straddles such a change
/// looked "faster beyond noise" to the pooled test (one placement of SETR was judged 5.5%
/// faster than itself, 5 runs each). The pairs are independent where the runs of a block are
/// not, so a t interval over them (df = pairs − 1) holds; with one pair it is infinite.
struct BlockLeads {
  std::vector<double> leads;
  double half_ms(double z = 3) const {
    std::size_t const k = leads.size();
    if (k < 2) return INFINITY;
    double mean = 0, ss = 0;
    for (double d : leads) mean += d / static_cast<double>(k);
    for (double d : leads) ss += (d - mean) * (d - mean);
    return detail::student_t_like_z(z, static_cast<int>(k - 1)) * std::sqrt(ss / static_cast<double>(k - 1) / static_cast<double>(k));
  }
};

/// Faster when the challenger's median is below the incumbent's by more than `z` standard
/// errors of the difference of the two medians (z = 3: about one false "faster" in 700 when
/// the two are equal), and by at least `min_relative` of the incumbent (differences below it
/// do not survive a change of machine state; 0.5%).
inline Comparison compare_samples(std::vector<double> const& incumbent, std::vector<double> const& challenger, double z = 3,
                                  double min_relative = 0.005) {
  Comparison c;
  c.incumbent_ms = detail::median_of(incumbent);
  c.challenger_ms = detail::median_of(challenger);
  double se_a = detail::median_standard_error(incumbent), se_b = detail::median_standard_error(challenger);
  c.margin_ms = std::max(z * std::sqrt(se_a * se_a + se_b * se_b), min_relative * c.incumbent_ms);
  c.faster = c.challenger_ms < c.incumbent_ms - c.margin_ms;
  return c;
}

enum class Verdict { undecided, faster, not_faster };

/// The challenger's lead over the incumbent in ms (median of the incumbent − median of the
/// challenger) and the half width of its interval: z standard errors of the difference,
/// widened for an early look (detail::early_look_factor). settled_verdict decides on it.
struct LeadInterval {
  double lead_ms = 0;
  double half_ms = 0;
};
inline LeadInterval lead_interval(std::vector<double> const& incumbent, std::vector<double> const& challenger, double z = 3) {
  double se_a = detail::median_standard_error(incumbent), se_b = detail::median_standard_error(challenger);
  return {detail::median_of(incumbent) - detail::median_of(challenger),
          z * detail::early_look_factor(std::min(incumbent.size(), challenger.size())) * std::sqrt(se_a * se_a + se_b * se_b)};
}

/// compare_samples' verdict once more samples can no longer change it: the interval of the
/// difference of the medians (incumbent − challenger, ± z standard errors widened for an
/// early look) lies wholly above the relative margin — faster however the noise falls — or
/// wholly below it — not faster: even its top is a gain too small to count. Undecided while
/// the interval straddles the margin.
inline Verdict settled_verdict(std::vector<double> const& incumbent, std::vector<double> const& challenger, double z = 3,
                               double min_relative = 0.005) {
  if (incumbent.size() < 2 || challenger.size() < 2) return Verdict::undecided;
  auto [diff, half] = lead_interval(incumbent, challenger, z);
  double margin = min_relative * detail::median_of(incumbent);
  if (diff - half > margin) return Verdict::faster;
  if (diff + half < margin) return Verdict::not_faster;
  return Verdict::undecided;
}

/// Whether the median of `samples` lies above `bound_ms` beyond noise (the low end of its
/// interval, z standard errors widened as for an early look, is above the bound): a candidate
/// that cannot measure faster than `bound_ms` however many more runs it gets.
inline bool clearly_above(std::vector<double> const& samples, double bound_ms, double z = 3) {
  if (samples.size() < 2) return false;
  double se = detail::median_standard_error(samples);
  return detail::median_of(samples) - z * detail::early_look_factor(samples.size()) * se > bound_ms;
}

/// Times the incumbent and the challenger alternately, `block` runs each (`time_a(n)`,
/// `time_b(n)`: n runs' milliseconds), the order turned every pair (A B, B A, ...) so that a
/// steady drift cancels, until the verdict is settled, each side has `max_runs`, or
/// `stop(samples_a, samples_b)` (a deadline, a budget) says so after at least one block each.
/// The verdict is compare_samples' on every sample with its margin widened to the blocks'
/// (BlockLeads): "faster" needs the lead to stand above the spread between block pairs too,
/// so it takes at least two pairs (in practice three or more); "not faster" may settle after
/// one, as before (the incumbent stays: the error that costs a missed gain, not a false one).
/// The block shrinks so that `max_runs` holds at least three pairs. The first look comes
/// once each side has `options.min_runs` runs (or one block). With `options.screen`, a
/// challenger behind at the first look (its median not below the incumbent's) ends it: not
/// faster, screened_out (CompareOptions).
template <class TimeA, class TimeB, class Stop>
Comparison interleaved_compare(TimeA&& time_a, TimeB&& time_b, std::size_t max_runs, Stop&& stop, std::size_t block = 5,
                               CompareOptions options = {}) {
  block = std::max<std::size_t>(1, std::min(block, max_runs / 3));
  std::size_t const first_look = std::min(max_runs, std::max(block, options.min_runs));
  bool looked = false;
  std::vector<double> a, b;
  BlockLeads pairs;
  auto verdict = [&] {
    Comparison c = compare_samples(a, b);
    c.margin_ms = std::max(c.margin_ms, pairs.half_ms());
    c.faster = c.challenger_ms < c.incumbent_ms - c.margin_ms;
    c.runs = std::min(a.size(), b.size());
    return c;
  };
  while (a.size() < max_runs) {
    std::size_t n = std::min(block, max_runs - a.size());
    std::vector<double> ta, tb;
    if (pairs.leads.size() % 2 == 0) {
      ta = time_a(n);
      tb = time_b(n);
    } else {
      tb = time_b(n);
      ta = time_a(n);
    }
    pairs.leads.push_back(detail::median_of(ta) - detail::median_of(tb));
    a.insert(a.end(), ta.begin(), ta.end());
    b.insert(b.end(), tb.begin(), tb.end());
    if (a.size() < first_look) continue;  // (first_look <= max_runs)
    if (options.screen && !looked && !(detail::median_of(a) > detail::median_of(b))) {
      Comparison c = verdict();
      c.faster = false;
      c.screened_out = true;
      return c;
    }
    looked = true;
    if (a.size() >= max_runs) break;
    Verdict v = settled_verdict(a, b);
    if (v == Verdict::not_faster || stop(a, b)) break;
    if (v == Verdict::faster) {
      auto [lead, half] = lead_interval(a, b);
      if (lead - std::max(half, pairs.half_ms()) > 0.005 * detail::median_of(a)) break;
    }
  }
  return verdict();
}

/// A runtime whose latencies are measurements: it decides "faster" by compare().
template <class R, class Set = BuiltinOps>
concept ComparingRuntime = requires(R& r, Graph<Set> const& g) {
  { r.compare(g, g) } -> std::same_as<Comparison>;
};

/// A runtime whose comparisons also screen (CompareOptions::screen): a search measures each
/// candidate paired with the best graph so far, in the same stretch of the machine's speed,
/// instead of alone against the best's latency timed earlier. On a machine whose speed moves
/// by 40% within a minute (this project's 2-core VM: Inception-v3 between 78 and 140 ms), a
/// candidate timed alone is judged by the stretch it fell in; and the best's latency, updated
/// by each comparison it won, drifts to its luckiest stretch (a winner's curse): a search on
/// Inception-v3 kept none of 13 candidates estimated 11% cheaper.
template <class R, class Set = BuiltinOps>
concept PairedScreeningRuntime = ComparingRuntime<R, Set> && requires(R& r, Graph<Set> const& g) {
  { r.compare(g, g, CompareOptions{}) } -> std::same_as<Comparison>;
};

/// A measuring runtime that can stop measuring a graph early once it is clearly slower than
/// `bound_ms` (clearly_above): where a search needs only to know whether a candidate may beat
/// the best so far, the runs that would only pin down how much slower it is are not spent.
template <class R, class Set = BuiltinOps>
concept ScreeningRuntime = requires(R& r, Graph<Set> const& g, double bound_ms) {
  { r.screen(g, bound_ms) } -> std::same_as<double>;
};

/// A measuring runtime that cuts its measurements short (to their minimum) after a deadline,
/// so that a search's time limit holds within its measuring loops too.
template <class R>
concept DeadlineRuntime = requires(R& r, std::chrono::steady_clock::time_point t) { r.set_deadline(t); };

}  // namespace autograph
