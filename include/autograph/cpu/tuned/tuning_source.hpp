#pragma once
// Where the CPU runtime's tunable kernels find their tuned configurations: a tuning log
// (`autograph tune` writes one) and the device it was measured on. Process-wide, like
// builtin::set_conv_layout: set it before preparing executables; kernels prepared afterwards
// run the fastest logged configuration of their problem, and their untuned default otherwise.
//
//   cpu::tuned::use_tuning_log(std::make_shared<tuning::TuningLog>(tuning::TuningLog::open(path)), cpu::cpu_model_name());
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "autograph/tuning/tuning_log.hpp"

namespace autograph::cpu::tuned {

struct TuningSource {
  std::shared_ptr<tuning::TuningLog const> log;  // null: every kernel runs its default configuration
  std::string device;                            // the log's device key: cpu_model_name()
};

namespace detail {
struct TuningSourceSlot {
  std::mutex mutex;
  TuningSource source;
};
inline TuningSourceSlot& tuning_source_slot() {
  static TuningSourceSlot slot;
  return slot;
}
}  // namespace detail

/// Kernels prepared from now on read `log` (null: none) for `device`.
inline void use_tuning_log(std::shared_ptr<tuning::TuningLog const> log, std::string device) {
  auto& slot = detail::tuning_source_slot();
  std::lock_guard lock(slot.mutex);
  slot.source = {std::move(log), std::move(device)};
}

/// The log kernels read now (a copy: a later use_tuning_log() does not pull it from under a
/// kernel being prepared).
inline TuningSource tuning_source() {
  auto& slot = detail::tuning_source_slot();
  std::lock_guard lock(slot.mutex);
  return slot.source;
}

}  // namespace autograph::cpu::tuned
