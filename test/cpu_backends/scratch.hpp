#pragma once
// What the placement tests on the CPU share: a cost database of their own, and measuring that
// is quick (a test checks decisions and outputs, not speed).
#include <autograph/cpu/runtime.hpp>

#include <filesystem>
#include <string>

#include "../testing/scratch_dir.hpp"

namespace autograph::cpu::testing {

/// `name` in a folder of this process (removed when it exits), emptied of an earlier test's
/// file: every test measures from a database it starts itself.
inline std::filesystem::path fresh_db(std::string const& name) {
  static autograph::testing::ScratchDir const dir("autograph_cpu_backends");
  return dir.fresh(name);
}

inline CpuRuntimeOptions quick() { return {.warmup = 1, .budget_ms = 2}; }

}  // namespace autograph::cpu::testing
