#pragma once
// Evolutionary search (AutoGTCO, section IV-D: "leverages mutation and crossover mechanism to
// generate a new set of candidates repeatedly for several rounds and outputs a small set of
// programs with the highest scores"; the scores are the learned cost model's). One call proposes
// the next batch of configurations to measure:
//  1. population: the best measured choices (a share of it) plus uniform random valid samples;
//  2. for a few generations, children of parents picked by predicted score (binary tournament):
//     a mutation changes one knob of one parent to another of its values; a crossover takes each
//     knob from one of two parents. Invalid children are dropped (never proposed, never measured);
//  3. the batch: the unmeasured choices seen with the highest predictions, and an epsilon-greedy
//     share of uniform random unmeasured ones, so a model that is wrong about a region still
//     sees measurements from it.
// The defaults are Ansor's (TVM auto_scheduler SketchPolicy: population 2048, 4 iterations,
// mutation probability 0.85, eps_greedy 0.05, 20% of the population from measured programs).
#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/tuning/cost_model.hpp"
#include "autograph/tuning/random_annotation.hpp"
#include "autograph/tuning/space.hpp"

namespace autograph::tuning {

struct SearchOptions {
  std::size_t population = 2048;      // candidates per generation
  std::size_t generations = 4;        // rounds of mutation/crossover per batch
  double mutation_probability = 0.85; // a child is a mutation with this probability, else a crossover
  double epsilon = 0.05;              // share of each batch drawn at random instead of by prediction
  double measured_share = 0.2;        // share of the first population taken from the best measured choices
  std::size_t max_tries = 1000;       // rejection draws before giving up on one valid (or unmeasured) sample
};

/// `one` with one knob (among those with several values) changed to another of its values.
inline Choice mutate(std::vector<Knob> const& knobs, Choice one, std::mt19937_64& rng) {
  std::vector<std::size_t> movable;
  for (std::size_t i = 0; i < knobs.size(); ++i)
    if (knobs[i].values.size() > 1) movable.push_back(i);
  if (movable.empty()) return one;
  std::size_t k = movable[std::uniform_int_distribution<std::size_t>(0, movable.size() - 1)(rng)];
  std::size_t shift = std::uniform_int_distribution<std::size_t>(1, knobs[k].values.size() - 1)(rng);
  one[k] = (one[k] + shift) % knobs[k].values.size();  // uniform over the other values
  return one;
}

/// Each knob from `a` or `b` with equal probability.  @pre a.size() == b.size()
inline Choice crossover(Choice const& a, Choice const& b, std::mt19937_64& rng) {
  Choice c(a.size());
  std::bernoulli_distribution coin(0.5);
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = coin(rng) ? a[i] : b[i];
  return c;
}

/// The features of each choice, row-major, `cols` wide.
/// @throws Error naming the kernel when a row's width differs.
template <TunableKernel K>
std::vector<float> feature_rows(typename K::Problem const& p, std::span<Choice const> choices, std::size_t cols) {
  std::vector<float> rows;
  rows.reserve(choices.size() * cols);
  for (auto const& c : choices) {
    auto f = K::features(p, K::config(p, c));
    if (f.size() != cols)
      throw Error("tuning " + describe_problem<K>(p) + ": features() gave " + std::to_string(f.size()) + " values for " +
                  std::string(K::to_string(K::config(p, c))) + ", " + std::to_string(cols) + " for others");
    rows.insert(rows.end(), f.begin(), f.end());
  }
  return rows;
}

/// Up to `n` distinct uniform random valid choices for which `is_known` is false; fewer when
/// `max_tries` draws in a row found nothing new (the space is nearly exhausted).
template <TunableKernel K, class IsKnown>
std::vector<Choice> random_batch(typename K::Problem const& p, std::vector<Knob> const& knobs, IsKnown&& is_known, std::size_t n,
                                 std::mt19937_64& rng, std::size_t max_tries, std::set<Choice> taken = {}) {
  std::vector<Choice> out;
  for (std::size_t misses = 0; out.size() < n && misses < max_tries;) {
    auto c = sample_valid<K>(p, knobs, rng, max_tries);
    if (!c) break;
    if (taken.contains(*c) || is_known(*c)) {
      ++misses;
      continue;
    }
    misses = 0;
    taken.insert(*c);
    out.push_back(std::move(*c));
  }
  return out;
}

/// The next `n` choices to measure for problem `p`: the evolutionary search's best predictions
/// and an epsilon share of random ones (all random while `model` is untrained). `measured_best`
/// holds measured choices, fastest first; `is_known(choice)` says whether a choice is measured.
/// Every returned choice is valid, unmeasured and distinct; fewer than n when the space runs out.
template <TunableKernel K, class IsKnown>
std::vector<Choice> propose_batch(typename K::Problem const& p, std::vector<Knob> const& knobs, std::span<Choice const> measured_best,
                                  GradientBoostedCostModel const& model, IsKnown&& is_known, std::size_t n, std::mt19937_64& rng,
                                  SearchOptions const& o = {}) {
  if (!model.trained()) return random_batch<K>(p, knobs, is_known, n, rng, o.max_tries);
  std::size_t const cols = model.features();
  std::map<Choice, float> scored;  // every choice the search predicted, with its prediction
  auto score = [&](std::vector<Choice> const& pop) {
    auto predicted = model.predict(feature_rows<K>(p, pop, cols), cols);
    for (std::size_t i = 0; i < pop.size(); ++i) scored.emplace(pop[i], predicted[i]);
    return predicted;
  };

  // 1. The first population: the best measured, then uniform random valid samples.
  std::vector<Choice> pop;
  auto from_measured = std::min(measured_best.size(), static_cast<std::size_t>(o.measured_share * static_cast<double>(o.population)));
  pop.assign(measured_best.begin(), measured_best.begin() + static_cast<std::ptrdiff_t>(from_measured));
  while (pop.size() < o.population) {
    auto c = sample_valid<K>(p, knobs, rng, o.max_tries);
    if (!c) break;
    pop.push_back(std::move(*c));
  }
  if (pop.empty()) return {};

  // 2. Generations of children from parents picked by predicted score.
  std::bernoulli_distribution mutation(o.mutation_probability);
  for (std::size_t g = 0; g < o.generations; ++g) {
    auto fitness = score(pop);
    std::uniform_int_distribution<std::size_t> any(0, pop.size() - 1);
    auto parent = [&]() -> Choice const& {  // binary tournament: robust to negative or flat predictions
      std::size_t a = any(rng), b = any(rng);
      return pop[fitness[a] >= fitness[b] ? a : b];
    };
    std::vector<Choice> next;
    next.reserve(o.population);
    for (std::size_t tries = 0; next.size() < o.population && tries < o.population * 4; ++tries) {
      Choice child = mutation(rng) ? mutate(knobs, parent(), rng) : crossover(parent(), parent(), rng);
      if (is_valid_choice<K>(p, knobs, child)) next.push_back(std::move(child));
    }
    if (next.empty()) break;
    pop = std::move(next);
  }
  score(pop);

  // 3. The batch: the best unmeasured predictions, then an epsilon share of random ones.
  std::vector<std::pair<float, Choice const*>> ranked;
  for (auto const& [c, s] : scored)
    if (!is_known(c)) ranked.emplace_back(s, &c);
  // Trees predict one value per leaf, so many candidates tie: shuffled first, ties are broken at
  // random rather than by the order of the choices (which would keep picking the same corner).
  std::shuffle(ranked.begin(), ranked.end(), rng);
  std::stable_sort(ranked.begin(), ranked.end(), [](auto const& a, auto const& b) { return a.first > b.first; });
  auto random_share = static_cast<std::size_t>(o.epsilon * static_cast<double>(n) + 0.5);
  std::vector<Choice> batch;
  std::set<Choice> taken;
  for (std::size_t i = 0; i < ranked.size() && batch.size() + random_share < n; ++i) {
    batch.push_back(*ranked[i].second);
    taken.insert(*ranked[i].second);
  }
  auto random = random_batch<K>(p, knobs, is_known, n - batch.size(), rng, o.max_tries, taken);
  for (auto& c : random) taken.insert(c);
  batch.insert(batch.end(), std::make_move_iterator(random.begin()), std::make_move_iterator(random.end()));
  for (std::size_t i = 0; i < ranked.size() && batch.size() < n; ++i)  // random draws ran out: more predictions
    if (taken.insert(*ranked[i].second).second) batch.push_back(*ranked[i].second);
  return batch;
}

}  // namespace autograph::tuning
