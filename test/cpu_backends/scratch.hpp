#pragma once
// What the placement tests on the CPU share: a cost database of their own, and measuring that
// is quick (a test checks decisions and outputs, not speed).
#include <autograph/cpu/runtime.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace autograph::cpu::testing {

/// `name` in a folder of this process, emptied of an earlier run's file: every test measures
/// from a database it starts itself.
inline std::filesystem::path fresh_db(std::string const& name) {
  auto dir = std::filesystem::temp_directory_path() / ("autograph_cpu_backends_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir / name);
  return dir / name;
}

inline CpuRuntimeOptions quick() { return {.warmup = 1, .budget_ms = 2}; }

}  // namespace autograph::cpu::testing
