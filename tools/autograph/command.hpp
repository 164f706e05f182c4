#pragma once
// Subcommands of the `autograph` tool register themselves here: one cmd_*.cpp per command,
// no central list to edit.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace autograph::cli {

/// `setup` declares the command's options on its CLI11 subcommand and returns what to run
/// once they are parsed (the process exit code).
struct Command {
  std::string name;
  std::string help;
  std::function<std::function<int()>(CLI::App&)> setup;
};

inline std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

/// `v` with `digits` digits after the point, as the commands print times and sizes.
inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

struct Register {
  explicit Register(Command c) { commands().push_back(std::move(c)); }
};

/// Checks of numeric options, shared so that every command words them alike (CLI11's
/// PositiveNumber accepts NaN and infinity, and its message lists a range up to 1.8e308).
/// Counts: --batch, --resolution, --streams.
inline CLI::Validator const positive_integer{[](std::string& text) -> std::string {
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || n <= 0) return "'" + text + "' is not a positive integer";
  return {};
}, "POSITIVE"};
/// Seeds: --seed, --weight-seed: digits only, within 64 bits (CLI11 wraps -1 and saturates
/// 99999999999999999999 to 2^64 - 1 without a word).
inline CLI::Validator const seed_value{[](std::string& text) -> std::string {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) return "'" + text + "' is not a seed (a whole number from 0 to 2^64 - 1)";
  return {};
}, "SEED"};
/// Durations: --time-limit.
inline CLI::Validator const positive_seconds{[](std::string& text) -> std::string {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= 0) return "'" + text + "' is not a positive, finite number of seconds";
  return {};
}, "SECONDS"};

}  // namespace autograph::cli
