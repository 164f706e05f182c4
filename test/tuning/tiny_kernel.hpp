#pragma once
// A 3x3 kernel space for the tuner's edge cases: knobs a and b in {0, 1, 2}, valid when a + b is
// even (5 of the 9 points), latency (1 + a + b) ms; the problem can make the space empty or the
// default invalid.
#include <string>
#include <vector>

#include <autograph/tuning/space.hpp>

namespace autograph::tuning::testing {

struct TinyKernel {
  struct Problem {
    bool no_knobs = false;        // knobs() is empty
    bool empty_knob = false;      // knob b has no values
    bool invalid_default = false; // the default is (0, 1), which is invalid
  };
  struct Config {
    std::int64_t a, b;
  };
  static constexpr std::string_view name = "tiny";
  static std::vector<Knob> knobs(Problem const& p) {
    if (p.no_knobs) return {};
    return {{"a", {0, 1, 2}}, {"b", p.empty_knob ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{0, 1, 2}}};
  }
  static Config config(Problem const& p, Choice const& c) {
    auto k = knobs(p);
    return {k[0].values[c[0]], k[1].values[c[1]]};
  }
  static bool is_valid(Problem const&, Config const& c) { return (c.a + c.b) % 2 == 0; }
  static std::vector<float> features(Problem const&, Config const& c) { return {static_cast<float>(c.a), static_cast<float>(c.b)}; }
  static Config default_config(Problem const& p) { return p.invalid_default ? Config{0, 1} : Config{0, 0}; }
  static std::string signature(Problem const& p) { return p.no_knobs ? "no knobs" : p.empty_knob ? "empty knob" : "3x3"; }
  static std::string to_string(Config const& c) { return "a" + std::to_string(c.a) + " b" + std::to_string(c.b); }
  static double latency(Config const& c) { return 1e-3 * static_cast<double>(1 + c.a + c.b); }
};
static_assert(TunableKernel<TinyKernel>);

}  // namespace autograph::tuning::testing
