#pragma once
// The measurer of Collage's Eq. 3, behind the cost database: each candidate's cost is its
// (backend, group signature)'s entry, and only signatures the database does not know for this
// device are measured, each once (a measured runtime's backends of one signature together,
// interleaved), with progress reported; the database is saved after the measurements (also
// when one fails, so a second run resumes where the first stopped).
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/group_signature.hpp"
#include "autograph/placement/candidate.hpp"
#include "autograph/placement/cost_database.hpp"
#include "autograph/runtime/noise.hpp"

namespace autograph::placement {

struct CostProgress {
  std::size_t done = 0, total = 0;  // measurements made and needed in this call
  std::string_view backend;
  std::string_view signature;
};

struct CandidateCosts {
  std::vector<double> us;      // by candidate
  std::size_t distinct = 0;    // distinct (backend, signature) among the candidates
  std::size_t measured = 0;    // of which measured now
  std::size_t signatures_measured = 0;  // the group signatures behind them (a signature's backends are timed together)
  double measuring_seconds = 0;
};

/// How candidate_costs times the backends of one group signature side by side (a runtime
/// that measures, cpu/backends/place.hpp): `prepare(candidate)` readies its backend's kernel
/// and returns a sampler, each call of which is one sample of its cost in microseconds; the
/// samplers of one signature are called in turn, round by round, each round starting one
/// backend later (a b c, b c a, c a b, ...), and a backend's cost is the median of its samples.
/// Why: timed one after another, each backend at its own moment, two backends of one group were
/// ranked by the machine's speed at those moments. On the project's 2-core VM the same BERT
/// product (64x1024 @ 1024x1024) timed 1.47 ms on OpenBLAS against 3.03 ms on oneDNN in one
/// profiling and 1.71 against 1.18 ms in the next, ten minutes later. Interleaved, a drift of the
/// machine's speed falls on every backend of the group alike.
struct InterleavedSampling {
  std::function<std::function<double()>(Candidate const&)> prepare;
  int rounds = 15;              // samples per backend, at most
  int min_rounds = 3;           // samples per backend before the budget may stop a signature
  double budget_seconds = std::numeric_limits<double>::infinity();  // per backend: a signature of n backends stops
                                // at the end of the first round (from min_rounds on) that ends past n * budget_seconds
  std::string condition = {};   // appended to each signature in the database: what else the costs were timed under
};

namespace detail {

/// candidate_costs' bookkeeping: the database's entries, the signatures to measure (all of a
/// signature's backends when `whole_signature` and any of them is missing; else the missing
/// ones), progress, saving, and the error naming the backend, pattern and group.
/// `measure(keys) -> microseconds by key` times the (backend, candidate) pairs of one signature.
template <class Set, class MeasureSignature>
CandidateCosts signature_costs(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::span<std::string const> backends,
                               CostDatabase& db, bool whole_signature, MeasureSignature&& measure,
                               std::function<void(CostProgress const&)> const& progress, std::string const& condition = {}) {
  CandidateCosts r;
  r.us.resize(candidates.size());
  // signature -> backend -> the candidates of that (backend, signature)
  std::map<std::string, std::map<std::uint32_t, std::vector<std::size_t>>> by_signature;
  for (std::size_t c = 0; c < candidates.size(); ++c)
    by_signature[group_signature(facts, candidates[c].group) + condition][candidates[c].backend].push_back(c);
  struct Pending {
    std::string const* signature;
    std::vector<std::pair<std::uint32_t, std::vector<std::size_t> const*>> backends;  // to measure
  };
  std::vector<Pending> pending;
  std::size_t to_measure = 0;
  for (auto const& [signature, by_backend] : by_signature) {
    r.distinct += by_backend.size();
    Pending p{&signature, {}};
    bool any_missing = false;
    for (auto const& [backend, users] : by_backend) {
      if (auto known = db.find(backends[backend], signature)) {
        for (std::size_t c : users) r.us[c] = *known;
        if (whole_signature) p.backends.emplace_back(backend, &users);
      } else {
        any_missing = true;
        p.backends.emplace_back(backend, &users);
      }
    }
    if (!any_missing) continue;
    to_measure += p.backends.size();
    pending.push_back(std::move(p));
  }
  auto const start = std::chrono::steady_clock::now();
  struct SaveOnExit {
    CostDatabase& db;
    bool dirty = false;
    ~SaveOnExit() {
      if (!dirty) return;
      try {
        db.save();
      } catch (...) {  // a destructor must not throw; the measurement's own error is the one to report
      }
    }
  } saver{db};
  std::size_t done = 0;
  for (Pending const& p : pending) {
    std::string names;
    std::vector<Candidate const*> keys;
    for (auto const& [backend, users] : p.backends) {
      names += (names.empty() ? "" : ", ") + backends[backend];
      keys.push_back(&candidates[users->front()]);
    }
    if (progress) progress({done, to_measure, names, *p.signature});
    auto fail = [&](Candidate const& cand, char const* what) {
      std::string const& backend = backends[cand.backend];
      return Error("backend '" + backend + "' claims the group " + *p.signature + " (pattern '" + cand.pattern + "', " +
                   facts.graph().label(cand.group.nodes.front()) + (cand.group.size() > 1 ? " and " + std::to_string(cand.group.size() - 1) + " more" : "") +
                   ") but cannot run it: " + what);
    };
    std::vector<double> us = measure(std::span<Candidate const* const>(keys), fail);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      db.insert(backends[keys[k]->backend], *p.signature, us[k]);
      saver.dirty = true;
      ++r.measured;
      for (std::size_t c : *p.backends[k].second) r.us[c] = us[k];
    }
    done += keys.size();
    ++r.signatures_measured;
  }
  if (progress && !pending.empty()) progress({to_measure, to_measure, {}, {}});
  r.measuring_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (saver.dirty) {
    saver.dirty = false;
    db.save();
  }
  return r;
}

}  // namespace detail

/// The cost of every candidate, measuring with `measure(candidate) -> microseconds` only what
/// `db` does not know, one (backend, signature) at a time: for costs that do not drift (a
/// roofline, cost tables). A measurement that throws is rethrown as an Error naming the backend,
/// the pattern and the group.
template <class Set>
CandidateCosts candidate_costs(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::span<std::string const> backends,
                               CostDatabase& db, std::function<double(Candidate const&)> const& measure,
                               std::function<void(CostProgress const&)> const& progress = {}) {
  auto each = [&](std::span<Candidate const* const> keys, auto const& fail) {
    std::vector<double> us;
    for (Candidate const* c : keys) {
      try {
        us.push_back(measure(*c));
      } catch (std::exception const& e) {
        throw fail(*c, e.what());
      }
    }
    return us;
  };
  return detail::signature_costs(facts, candidates, backends, db, false, each, progress);
}

/// The cost of every candidate by measurement interleaved across backends (InterleavedSampling):
/// a signature the database lacks for any of its backends is timed on all of them together, so
/// that their costs are of one moment (the entries it knew are measured again and replaced).
/// @throws Error naming the backend, the pattern and the group when preparing or sampling one
/// throws (the costs measured before it are saved).
template <class Set>
CandidateCosts candidate_costs(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::span<std::string const> backends,
                               CostDatabase& db, InterleavedSampling const& sampling, std::function<void(CostProgress const&)> const& progress = {}) {
  if (!sampling.prepare) throw Error("candidate_costs(): InterleavedSampling has no prepare function");
  if (!(sampling.budget_seconds > 0)) throw Error("candidate_costs(): InterleavedSampling's budget_seconds must be positive");
  if (sampling.min_rounds < 1 || sampling.rounds < sampling.min_rounds)
    throw Error("candidate_costs(): InterleavedSampling needs 1 <= min_rounds <= rounds, got " + std::to_string(sampling.min_rounds) + " and " +
                std::to_string(sampling.rounds));
  auto interleaved = [&](std::span<Candidate const* const> keys, auto const& fail) {
    std::size_t const n = keys.size();
    std::vector<std::function<double()>> samplers;
    for (Candidate const* c : keys) {
      try {
        samplers.push_back(sampling.prepare(*c));
      } catch (std::exception const& e) {
        throw fail(*c, e.what());
      }
    }
    std::vector<std::vector<double>> samples(n);
    auto const t0 = std::chrono::steady_clock::now();
    for (int round = 0; round < sampling.rounds; ++round) {
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (round >= sampling.min_rounds && elapsed >= sampling.budget_seconds * static_cast<double>(n)) break;
      for (std::size_t i = 0; i < n; ++i) {
        std::size_t k = (static_cast<std::size_t>(round) + i) % n;
        try {
          samples[k].push_back(samplers[k]());
        } catch (std::exception const& e) {
          throw fail(*keys[k], e.what());
        }
      }
    }
    std::vector<double> us;
    for (auto& s : samples) us.push_back(autograph::detail::median_of(std::move(s)));
    return us;
  };
  return detail::signature_costs(facts, candidates, backends, db, true, interleaved, progress, sampling.condition);
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template CandidateCosts candidate_costs<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::span<std::string const>,
                                                           CostDatabase&, std::function<double(Candidate const&)> const&,
                                                           std::function<void(CostProgress const&)> const&);
extern template CandidateCosts candidate_costs<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::span<std::string const>,
                                                           CostDatabase&, InterleavedSampling const&, std::function<void(CostProgress const&)> const&);
#endif

}  // namespace autograph::placement
