#pragma once
// `--device NAME`, shared by optimize and schedule so that both take the same names: any
// spelling device_spec() knows (h100, H200, rtx2080ti, "RTX 2080 Ti") and the short 2080ti
// that the help and the README use.
#include <autograph/cost/device.hpp>

#include <cctype>
#include <string>
#include <string_view>

namespace autograph::cli {

inline constexpr char const* device_names = "h100, h200, a100, v100, 2080ti (or rtx2080ti)";

/// Calls `f.template operator()<D>()` with the simulated device type named `name`.
/// @throws Error listing the known names.
template <class F>
decltype(auto) with_device(std::string const& name, F&& f) {
  std::string compact;  // as device_spec() compares: lower case, no '-', '_' or ' '
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ') compact += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view key;
  try {
    key = device_spec(compact == "2080ti" ? "rtx2080ti" : name).key;
  } catch (Error const&) {
    throw Error("--device " + name + ": unknown device (known: " + device_names + ")");
  }
  if (key == devices::H100::spec.key) return f.template operator()<devices::H100>();
  if (key == devices::H200::spec.key) return f.template operator()<devices::H200>();
  if (key == devices::A100::spec.key) return f.template operator()<devices::A100>();
  if (key == devices::V100::spec.key) return f.template operator()<devices::V100>();
  if (key == devices::RTX2080Ti::spec.key) return f.template operator()<devices::RTX2080Ti>();
  throw Error("--device " + name + ": no simulated runtime is built for it (known: " + device_names + ")");
}

}  // namespace autograph::cli
