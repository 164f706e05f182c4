#pragma once
// A synthetic tiled matmul that models TunableKernel, for the tuner's tests: seven knobs (tile
// sizes, vector width, unroll, threads, loop order), 88,200 grid points of which 74,520 are valid
// for the default 1024^3 problem, and a deterministic made-up latency (a roofline of a pretend
// 8-core CPU: vector, unroll and loop-order efficiencies, load imbalance over the tiles, cache-
// dependent bandwidth, per-tile overhead). Small enough to enumerate, so a test knows the
// optimum; only 0.16% of the valid points are within 5% of it, so random search needs hundreds
// of trials to get there. Nothing here is tuned to the tuner: the numbers are a plausible CPU's.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <autograph/tuning/space.hpp>

namespace autograph::tuning::testing {

struct SyntheticMatmul {
  struct Problem {
    std::int64_t m = 1024, n = 1024, k = 1024;
    bool flat = false;  // every valid configuration takes the same time (a task tuning cannot improve)
  };
  struct Config {
    std::int64_t tile_m, tile_n, tile_k, vector, unroll, threads, order;
    friend bool operator==(Config const&, Config const&) = default;
  };
  static constexpr std::string_view name = "synthetic_matmul";

  static std::vector<Knob> knobs(Problem const&) {
    return {{"tile_m", {4, 8, 16, 32, 64, 128, 256}}, {"tile_n", {4, 8, 16, 32, 64, 128, 256}}, {"tile_k", {8, 16, 32, 64, 128, 256}},
            {"vector", {1, 2, 4, 8, 16}},            {"unroll", {1, 2, 4, 8}},                {"threads", {1, 2, 4, 8, 16}},
            {"order", {0, 1, 2}}};
  }
  static Config config(Problem const& p, Choice const& c) {
    auto k = knobs(p);
    auto v = [&](std::size_t i) { return k[i].values[c[i]]; };
    return {v(0), v(1), v(2), v(3), v(4), v(5), v(6)};
  }
  static std::int64_t footprint_bytes(Config const& c) { return (c.tile_m * c.tile_k + c.tile_k * c.tile_n + c.tile_m * c.tile_n) * 4; }
  static std::int64_t tiles(Problem const& p, Config const& c) { return (p.m / c.tile_m) * (p.n / c.tile_n); }
  static bool is_valid(Problem const& p, Config const& c) {
    return c.vector <= c.tile_n && footprint_bytes(c) <= 256 * 1024 && tiles(p, c) >= c.threads && c.unroll <= c.tile_k &&
           p.m % c.tile_m == 0 && p.n % c.tile_n == 0 && p.k % c.tile_k == 0;
  }
  static std::vector<float> features(Problem const& p, Config const& c) {
    double t = static_cast<double>(tiles(p, c));
    double waves = std::ceil(t / static_cast<double>(c.threads));
    return {static_cast<float>(std::log2(c.tile_m)),  static_cast<float>(std::log2(c.tile_n)),  static_cast<float>(std::log2(c.tile_k)),
            static_cast<float>(c.vector),             static_cast<float>(c.unroll),             static_cast<float>(c.threads),
            static_cast<float>(c.order),              static_cast<float>(std::log2(footprint_bytes(c))),
            static_cast<float>(t / (waves * static_cast<double>(c.threads))),  // the busy share of the threads
            static_cast<float>(std::log2(t))};
  }
  static Config default_config(Problem const&) { return {32, 32, 32, 1, 1, 1, 0}; }
  static std::string signature(Problem const& p) {
    return "m" + std::to_string(p.m) + " n" + std::to_string(p.n) + " k" + std::to_string(p.k) + (p.flat ? " flat" : "");
  }
  static std::string to_string(Config const& c) {
    return "tm" + std::to_string(c.tile_m) + " tn" + std::to_string(c.tile_n) + " tk" + std::to_string(c.tile_k) + " v" + std::to_string(c.vector) +
           " u" + std::to_string(c.unroll) + " t" + std::to_string(c.threads) + " o" + std::to_string(c.order);
  }

  /// The made-up latency in seconds of a valid configuration.
  static double latency(Problem const& p, Config const& c) {
    if (p.flat) return 1e-3;
    double flops = 2.0 * static_cast<double>(p.m * p.n * p.k);
    double lanes = static_cast<double>(std::min<std::int64_t>(c.vector, 8));  // AVX2: 8 floats
    double vector_eff = lanes / 8 * (c.vector == 16 ? 0.95 : 1.0);
    double unroll_eff = c.unroll == 1 ? 0.7 : c.unroll == 2 ? 0.85 : c.unroll == 4 ? 1.0 : 0.92;
    if (c.unroll * c.vector > 32) unroll_eff *= 0.8;  // registers spill
    double order_eff = c.order == 0 ? (c.tile_n >= c.tile_m ? 1.0 : 0.8) : c.order == 1 ? (c.tile_m > c.tile_n ? 1.0 : 0.8) : 0.85;
    double t = static_cast<double>(tiles(p, c));
    double threads = static_cast<double>(c.threads);
    double waves = std::ceil(t / threads);
    double parallel = std::min(threads, 8.0) * (threads > 8 ? 0.9 : 1.0) * (t / (waves * threads));
    double compute = flops / (96e9 * vector_eff * unroll_eff * order_eff * parallel);  // 96 GFLOP/s per core
    double bandwidth = (footprint_bytes(c) <= 32 * 1024 ? 400e9 : 150e9) * (std::min(threads, 8.0) / 16 + 0.5);
    double traffic = static_cast<double>(p.m * p.n * p.k) * 4 * (1.0 / static_cast<double>(c.tile_m) + 1.0 / static_cast<double>(c.tile_n));
    double overhead = t * static_cast<double>(p.k / c.tile_k) * 2e-8 / std::min(threads, 8.0);
    return std::max(compute, traffic / bandwidth) + overhead;
  }

  /// The fastest valid configuration's latency, by enumerating the grid.
  static double optimum(Problem const& p) {
    auto k = knobs(p);
    double best = std::numeric_limits<double>::infinity();
    Choice c(k.size(), 0);
    while (true) {
      auto cfg = config(p, c);
      if (is_valid(p, cfg)) best = std::min(best, latency(p, cfg));
      std::size_t i = 0;
      while (i < c.size() && ++c[i] == k[i].values.size()) c[i++] = 0;
      if (i == c.size()) return best;
    }
  }
};
static_assert(TunableKernel<SyntheticMatmul>);

}  // namespace autograph::tuning::testing
