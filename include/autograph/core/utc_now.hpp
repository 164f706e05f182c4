#pragma once
// The current time as profiles, tuning logs and benchmark reports stamp their records.
#include <chrono>
#include <ctime>
#include <string>

namespace autograph {

/// Now, as "2026-11-27T10:50:03Z" (ISO 8601, UTC, to the second).
inline std::string utc_now() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace autograph
