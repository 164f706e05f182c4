#pragma once
// `--backends onednn,blas,own`: which of the CPU backends (cpu/backends/placed_baselines.hpp's
// AllBackends) a placement may use. Checked before anything long runs.
#include <autograph/core/error.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace autograph::cli {

inline constexpr char const* backend_names = "onednn, blas, own";

/// "onednn,,blas" -> {onednn, blas}. @throws Error naming an unknown or repeated backend, or an
/// empty list, with the known names.
inline std::vector<std::string> backends_arg(std::string const& text) {
  std::vector<std::string> const known{"onednn", "blas", "own"};
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, ',');) {
    if (part.empty()) continue;
    if (std::ranges::find(known, part) == known.end())
      throw Error("--backends '" + text + "': unknown backend '" + part + "' (known: " + backend_names + ")");
    if (std::ranges::find(out, part) != out.end()) throw Error("--backends '" + text + "': '" + part + "' is named twice");
    out.push_back(part);
  }
  if (out.empty()) throw Error("--backends '" + text + "' names no backend (known: " + backend_names + ")");
  return out;
}

}  // namespace autograph::cli
