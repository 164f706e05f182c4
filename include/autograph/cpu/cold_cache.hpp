#pragma once
// ColdCache: evicts this machine's caches before a timed run, so that a kernel timed alone
// reads its weights from memory as it does in a model whose weights do not fit in the
// last-level cache. Timed warm, a group's weights stay cached from run to run: on the
// project's 2-core VM (32 MB L3) the 64x1024 @ 1024x1024 product of BERT's linear layers timed
// 0.64-1.0 ms on oneDNN against 1.2-1.3 ms on OpenBLAS, interleaved, while in the model (128 MB
// of weights) placing those products on OpenBLAS ran 1.22-1.26x faster than oneDNN alone,
// beyond noise (autograph place, 2026-11-29).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace autograph::cpu {

/// Bytes of the last-level cache CPU 0 shares with its neighbours: sysfs' index3 (what lscpu
/// says), else sysconf, else 32 MiB. sysfs first: on the project's Zen 3 VM sysconf answers
/// 256 MiB, the whole socket's L3, of which a core's complex has 32.
inline std::size_t last_level_cache_bytes() {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string s;
  if (f >> s && !s.empty()) {
    try {
      std::size_t scale = s.back() == 'K' ? 1024 : s.back() == 'M' ? 1024 * 1024 : 1;
      if (std::size_t n = static_cast<std::size_t>(std::stoull(s)) * scale; n > 0) return n;
    } catch (...) {
    }
  }
#if defined(_SC_LEVEL3_CACHE_SIZE)
  if (long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE); l3 > 0) return static_cast<std::size_t>(l3);
#endif
  return std::size_t{32} << 20;
}

class ColdCache {
 public:
  /// A buffer of twice the last-level cache: reading it through leaves none of the bytes a run
  /// touched before in any cache.
  explicit ColdCache(std::size_t bytes = 2 * last_level_cache_bytes()) : lines_(bytes / sizeof(Line) + 1) {}
  /// Reads one word of every cache line of the buffer, and writes one, so the lines are owned.
  void operator()() {
    std::uint64_t sum = 0;
    for (auto& l : lines_) sum += l.word[0]++;
    sink_ = sum;
  }
  std::size_t bytes() const { return lines_.size() * sizeof(Line); }

 private:
  struct alignas(64) Line {
    std::uint64_t word[8] = {};
  };
  std::vector<Line> lines_;
  std::uint64_t volatile sink_ = 0;
};

}  // namespace autograph::cpu
