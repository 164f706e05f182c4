#pragma once
// Random annotation (AutoGTCO, section IV-D): a kernel is the sketch, its knobs the annotation
// space, and "all valid parameters for the random values are sampled from a uniform
// distribution". Sampling draws every knob uniformly and rejects points the kernel calls
// invalid: each point of the grid is equally likely, so the accepted ones are uniform over the
// valid points.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "autograph/core/error.hpp"
#include "autograph/tuning/space.hpp"

namespace autograph::tuning {

/// "attention [b1 h8 s1050 d32]": how errors and reports name a kernel's problem.
template <TunableKernel K>
std::string describe_problem(typename K::Problem const& p) {
  return std::string(K::name) + " [" + std::string(K::signature(p)) + "]";
}

/// Checks that a problem's space has a point: at least one knob, each with values, names unique.
/// @throws Error naming the kernel, the problem and the knob.
template <TunableKernel K>
void check_space(typename K::Problem const& p, std::vector<Knob> const& knobs) {
  auto fail = [&](std::string const& why) { throw Error("tuning " + describe_problem<K>(p) + ": " + why); };
  if (knobs.empty()) fail("the kernel has no knobs for this problem (an empty space)");
  std::set<std::string> names;
  for (auto const& k : knobs) {
    if (k.values.empty()) fail("knob '" + k.name + "' has no values (an empty space)");
    if (!names.insert(k.name).second) fail("knob '" + k.name + "' appears twice");
  }
}

/// The number of grid points (valid or not); saturates at the largest std::uint64_t.
inline std::uint64_t grid_size(std::vector<Knob> const& knobs) {
  std::uint64_t n = 1;
  for (auto const& k : knobs) {
    auto v = static_cast<std::uint64_t>(k.values.size());
    if (v != 0 && n > std::numeric_limits<std::uint64_t>::max() / v) return std::numeric_limits<std::uint64_t>::max();
    n *= v;
  }
  return n;
}

/// A uniformly random grid point (valid or not).  @pre check_space passed
inline Choice random_choice(std::vector<Knob> const& knobs, std::mt19937_64& rng) {
  Choice c(knobs.size());
  for (std::size_t i = 0; i < knobs.size(); ++i) c[i] = std::uniform_int_distribution<std::size_t>(0, knobs[i].values.size() - 1)(rng);
  return c;
}

/// Is `c` a point of the grid the kernel accepts for `p`?
template <TunableKernel K>
bool is_valid_choice(typename K::Problem const& p, std::vector<Knob> const& knobs, Choice const& c) {
  if (c.size() != knobs.size()) return false;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (c[i] >= knobs[i].values.size()) return false;
  return K::is_valid(p, K::config(p, c));
}

/// The grid point whose configuration prints as `config` does, by enumeration; nullopt when
/// there is none or the grid has more than `max_points` points. The kernel's default need not be
/// a grid point, and Config is opaque to the tuner: this is how the default, when it is one,
/// joins the evolutionary search's parents and is logged with its knobs.
template <TunableKernel K>
std::optional<Choice> find_choice(typename K::Problem const& p, std::vector<Knob> const& knobs, typename K::Config const& config,
                                  std::uint64_t max_points = std::uint64_t{1} << 20) {
  if (knobs.empty() || grid_size(knobs) == 0 || grid_size(knobs) > max_points) return std::nullopt;
  std::string const wanted(K::to_string(config));
  Choice c(knobs.size(), 0);
  while (true) {
    if (std::string(K::to_string(K::config(p, c))) == wanted) return c;
    std::size_t i = 0;
    while (i < c.size() && ++c[i] == knobs[i].values.size()) c[i++] = 0;
    if (i == c.size()) return std::nullopt;
  }
}

/// A uniformly random valid point, by rejection; nullopt when `max_tries` draws found none.
/// @pre check_space passed
template <TunableKernel K>
std::optional<Choice> sample_valid(typename K::Problem const& p, std::vector<Knob> const& knobs, std::mt19937_64& rng,
                                   std::size_t max_tries = 1000) {
  for (std::size_t t = 0; t < max_tries; ++t) {
    Choice c = random_choice(knobs, rng);
    if (K::is_valid(p, K::config(p, c))) return c;
  }
  return std::nullopt;
}

}  // namespace autograph::tuning
