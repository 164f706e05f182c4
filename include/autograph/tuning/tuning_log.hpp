#pragma once
// The tuning log: every measurement the tuner made, one JSON object per line, keyed by device
// (e.g. the CPU's model name), kernel and problem signature:
//   {"device": "AMD EPYC 7B13", "kernel": "attention", "signature": "b1 h8 s1050 d32",
//    "knobs": {"block_q": 32, "block_k": 64}, "config": "bq32 bk64", "latency_s": 0.00012,
//    "time": "2026-11-27T10:50:03Z"}
// "knobs" is the point of the space by knob name and value (not index), so a record still
// means the same configuration when a kernel adds values to a knob; "config" is the kernel's
// to_string(), for people. Lines are appended and flushed one measurement at a time: a run that
// is interrupted keeps what it measured, and a second run reads it and measures nothing it knows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "autograph/core/error.hpp"
#include "autograph/core/utc_now.hpp"
#include "autograph/tuning/space.hpp"

namespace autograph::tuning {

struct LogRecord {
  std::string device, kernel, signature;
  std::vector<std::pair<std::string, std::int64_t>> knobs;  // name -> value, in the kernel's knob order
  std::string config;                                        // the kernel's to_string()
  double latency_s = 0;
  std::string time;                                          // when it was measured, ISO 8601 UTC
  friend bool operator==(LogRecord const&, LogRecord const&) = default;
};


/// The knob values of a choice, by name.  @pre the choice indexes into knobs
inline std::vector<std::pair<std::string, std::int64_t>> knob_values(std::vector<Knob> const& knobs, Choice const& c) {
  std::vector<std::pair<std::string, std::int64_t>> v;
  for (std::size_t i = 0; i < knobs.size(); ++i) v.emplace_back(knobs[i].name, knobs[i].values[c[i]]);
  return v;
}

/// The choice whose knob values are `values`; nullopt when a knob is missing, unknown, or has a
/// value the space no longer offers.
inline std::optional<Choice> choice_of(std::vector<Knob> const& knobs, std::vector<std::pair<std::string, std::int64_t>> const& values) {
  if (values.size() != knobs.size()) return std::nullopt;
  Choice c(knobs.size());
  for (std::size_t i = 0; i < knobs.size(); ++i) {
    auto v = std::find_if(values.begin(), values.end(), [&](auto const& nv) { return nv.first == knobs[i].name; });
    if (v == values.end()) return std::nullopt;
    auto at = std::find(knobs[i].values.begin(), knobs[i].values.end(), v->second);
    if (at == knobs[i].values.end()) return std::nullopt;
    c[i] = static_cast<std::size_t>(at - knobs[i].values.begin());
  }
  return c;
}

class TuningLog {
 public:
  /// A log kept in memory only.
  TuningLog() = default;

  /// The log in `path`, read; a missing file is an empty log (created by the first append).
  /// @throws Error "tuning log 'PATH' line N: WHY" for a line that is not a record.
  static TuningLog open(std::filesystem::path const& path) {
    TuningLog log;
    log.path_ = path;
    std::ifstream in(path);
    if (!in) {
      if (std::filesystem::exists(path)) throw Error("tuning log '" + path.string() + "' cannot be read");
      return log;
    }
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines (an editor's trailing newline)
      log.records_.push_back(parse_line(line, "tuning log '" + path.string() + "' line " + std::to_string(n)));
    }
    return log;
  }

  /// One record from one line.  @throws Error starting with `where`, saying what is wrong.
  static LogRecord parse_line(std::string const& line, std::string const& where) {
    nlohmann::ordered_json j;  // ordered: the knobs come back in the order they were written
    try {
      j = nlohmann::ordered_json::parse(line);
    } catch (nlohmann::json::parse_error const& e) {
      throw Error(where + ": not valid JSON (" + e.what() + ")");
    }
    auto fail = [&](std::string const& why) -> LogRecord { throw Error(where + ": " + why); };
    if (!j.is_object()) return fail("a record must be a JSON object");
    LogRecord r;
    for (auto [key, field] : {std::pair{"device", &r.device}, {"kernel", &r.kernel}, {"signature", &r.signature}, {"config", &r.config}, {"time", &r.time}}) {
      if (!j.contains(key) || !j[key].is_string()) return fail(std::string("\"") + key + "\" must be a string");
      *field = j[key].get<std::string>();
    }
    if (!j.contains("latency_s") || !j["latency_s"].is_number()) return fail("\"latency_s\" must be a number");
    r.latency_s = j["latency_s"].get<double>();
    if (!(r.latency_s > 0) || !std::isfinite(r.latency_s)) return fail("\"latency_s\" is " + std::to_string(r.latency_s) + " (must be positive)");
    if (!j.contains("knobs") || !j["knobs"].is_object()) return fail("\"knobs\" must be an object of knob name -> integer value");
    for (auto const& [name, v] : j["knobs"].items()) {
      if (!v.is_number_integer()) return fail("knob \"" + name + "\" must be an integer");
      r.knobs.emplace_back(name, v.get<std::int64_t>());
    }
    return r;
  }

  /// The record as one line of JSON (no newline).
  static std::string to_line(LogRecord const& r) {
    nlohmann::ordered_json j;
    j["device"] = r.device;
    j["kernel"] = r.kernel;
    j["signature"] = r.signature;
    j["knobs"] = nlohmann::ordered_json::object();
    for (auto const& [name, v] : r.knobs) j["knobs"][name] = v;
    j["config"] = r.config;
    j["latency_s"] = r.latency_s;
    j["time"] = r.time;
    return j.dump();
  }

  /// Adds a record, and appends it to the file (flushed) when the log has one.
  /// @throws Error naming the file when it cannot be written.
  void append(LogRecord r) {
    if (path_) {
      std::ofstream out(*path_, std::ios::app);
      out << to_line(r) << '\n';
      out.flush();
      if (!out) throw Error("tuning log '" + path_->string() + "' cannot be written");
    }
    records_.push_back(std::move(r));
  }

  std::vector<LogRecord> const& records() const { return records_; }
  /// The records of one device, kernel and problem, in the order they were measured.
  std::vector<LogRecord const*> find(std::string const& device, std::string const& kernel, std::string const& signature) const {
    std::vector<LogRecord const*> out;
    for (auto const& r : records_)
      if (r.device == device && r.kernel == kernel && r.signature == signature) out.push_back(&r);
    return out;
  }
  std::optional<std::filesystem::path> const& path() const { return path_; }

 private:
  std::optional<std::filesystem::path> path_;
  std::vector<LogRecord> records_;
};

}  // namespace autograph::tuning
