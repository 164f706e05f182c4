#pragma once
// The measurer of Collage's Eq. 3, behind the cost database: each candidate's cost is its
// (backend, group signature)'s entry, and only signatures the database does not know for this
// device are measured, each once, with progress reported; the database is saved after the
// measurements (also when one fails, so a second run resumes where the first stopped).
#include <chrono>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "autograph/graph/group_signature.hpp"
#include "autograph/placement/candidate.hpp"
#include "autograph/placement/cost_database.hpp"

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
  double measuring_seconds = 0;
};

/// The cost of every candidate, measuring with `measure(candidate) -> microseconds` only what
/// `db` does not know. A measurement that throws is rethrown as an Error naming the backend,
/// the pattern and the group.
template <class Set>
CandidateCosts candidate_costs(GraphFacts<Set> const& facts, std::span<Candidate const> candidates, std::span<std::string const> backends,
                               CostDatabase& db, std::function<double(Candidate const&)> const& measure,
                               std::function<void(CostProgress const&)> const& progress = {}) {
  CandidateCosts r;
  r.us.resize(candidates.size());
  std::map<std::pair<std::uint32_t, std::string>, std::vector<std::size_t>> by_key;
  for (std::size_t c = 0; c < candidates.size(); ++c) by_key[{candidates[c].backend, group_signature(facts, candidates[c].group)}].push_back(c);
  r.distinct = by_key.size();
  std::vector<decltype(by_key)::const_iterator> missing;
  for (auto it = by_key.cbegin(); it != by_key.cend(); ++it) {
    if (auto known = db.find(backends[it->first.first], it->first.second)) {
      for (std::size_t c : it->second) r.us[c] = *known;
    } else {
      missing.push_back(it);
    }
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
  for (std::size_t i = 0; i < missing.size(); ++i) {
    auto const& [key, users] = *missing[i];
    auto const& backend = backends[key.first];
    Candidate const& cand = candidates[users.front()];
    if (progress) progress({i, missing.size(), backend, key.second});
    double us = 0;
    try {
      us = measure(cand);
    } catch (std::exception const& e) {
      throw Error("backend '" + backend + "' claims the group " + key.second + " (pattern '" + cand.pattern + "', " +
                  facts.graph().label(cand.group.nodes.front()) + (cand.group.size() > 1 ? " and " + std::to_string(cand.group.size() - 1) + " more" : "") +
                  ") but cannot run it: " + e.what());
    }
    db.insert(backend, key.second, us);
    saver.dirty = true;
    ++r.measured;
    for (std::size_t c : users) r.us[c] = us;
  }
  if (progress && !missing.empty()) progress({missing.size(), missing.size(), {}, {}});
  r.measuring_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (saver.dirty) {
    saver.dirty = false;
    db.save();
  }
  return r;
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template CandidateCosts candidate_costs<BuiltinOps>(GraphFacts<BuiltinOps> const&, std::span<Candidate const>, std::span<std::string const>,
                                                           CostDatabase&, std::function<double(Candidate const&)> const&,
                                                           std::function<void(CostProgress const&)> const&);
#endif

}  // namespace autograph::placement
