#pragma once
// `--device NAME`, shared by optimize and schedule so that both take the same names: any
// spelling device_spec() knows (h100, H200, rtx2080ti, "RTX 2080 Ti") and the short 2080ti
// that the help and the README use.
#include <autograph/cost/device.hpp>

#include <cctype>
#include <string>
#include <string_view>

namespace autograph::cli {

inline constexpr char const* device_names = "h100, h200, a100, v100, 2080ti (or rtx2080ti), p100, k80";

/// The simulated device named `name`, for SimulatedRuntime<devices::AtRunTime>.
/// @throws Error listing the known names.
inline DeviceSpec const& device_arg(std::string const& name) {
  std::string compact;  // as device_spec() compares: lower case, no '-', '_' or ' '
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ') compact += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  DeviceSpec const* d = nullptr;
  try {
    d = &device_spec(compact == "2080ti" ? "rtx2080ti" : name);
  } catch (Error const&) {
    throw Error("--device " + name + ": unknown device (known: " + device_names + ")");
  }
  return *d;
}

}  // namespace autograph::cli
