#pragma once
// The interface between the tuned kernels (cpu/tuned/) and the tuner: a kernel family with
// explicit tile parameters, its space of configurations per problem, and the features a
// learned cost model reads (AutoGTCO, Sec. IV-D: sketches and annotations).
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace autograph::tuning {
/// One tunable parameter and its admissible values (e.g. block_q: {8,16,32,64}).
struct Knob { std::string name; std::vector<std::int64_t> values; };
/// A point of a space: one index into each knob's values.
using Choice = std::vector<std::size_t>;
/// A kernel family with explicit tile parameters, tunable per problem (shape).
template <class K>
concept TunableKernel = requires(typename K::Problem const& p, typename K::Config const& c, Choice const& ch) {
  { K::name } -> std::convertible_to<std::string_view>;          // "attention", "matmul_epilogue"
  { K::knobs(p) } -> std::same_as<std::vector<Knob>>;           // the space for this problem
  { K::config(p, ch) } -> std::same_as<typename K::Config>;     // a choice as a configuration
  { K::is_valid(p, c) } -> std::same_as<bool>;                  // e.g. tile divides/fits, threads <= cores
  { K::features(p, c) } -> std::same_as<std::vector<float>>;   // for the learned cost model:
      // flops, bytes, tile sizes, vector width, unroll, threads, loop order, iterations per thread...
  { K::default_config(p) } -> std::same_as<typename K::Config>; // the untuned default
  { K::signature(p) } -> std::convertible_to<std::string>;      // key of the problem in tuning logs
  { K::to_string(c) } -> std::convertible_to<std::string>;      // a config as text (logs, reports)
};
}
