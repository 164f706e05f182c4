#pragma once
// CostDatabase: the measured cost of (backend, group signature) on each device, kept in a JSON
// file so that a device's groups are measured once (Collage §4.2: "we cache the result to the
// log for the future usage"). Costs are microseconds of one run of the group's kernel:
//
//   {"format": "autograph-placement-costs", "version": 1,
//    "devices": {"AMD EPYC 7B13 (2 cores)": {"onednn": {"Conv2D{...}(...); Relu{}(%0) -> %1": 812.5, ...}}}}
//
// save() rewrites the whole file, keeping every other device's entries, through a temporary
// file and a rename, so a reader never sees half a file.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "autograph/core/error.hpp"

namespace autograph::placement {

class CostDatabase {
 public:
  static constexpr std::string_view format = "autograph-placement-costs";
  static constexpr int version = 1;

  /// The database in `path` (empty when the file does not exist yet), read for `device`.
  /// @throws Error naming the file and what is wrong with it.
  CostDatabase(std::filesystem::path path, std::string device) : path_(std::move(path)), device_(std::move(device)) {
    doc_ = {{"format", format}, {"version", version}, {"devices", nlohmann::json::object()}};
    if (!std::filesystem::exists(path_)) return;
    std::ifstream f(path_);
    if (!f) throw Error("cost database '" + path_.string() + "': cannot open it");
    std::stringstream ss;
    ss << f.rdbuf();
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(ss.str());
    } catch (nlohmann::json::parse_error const& e) {
      throw Error("cost database '" + path_.string() + "' is not valid JSON: " + e.what());
    }
    auto fail = [&](std::string const& why) { throw Error("cost database '" + path_.string() + "': " + why); };
    if (!j.is_object() || j.value("format", "") != format) fail("not an " + std::string(format) + " file (its \"format\" differs)");
    if (j.value("version", 0) != version) fail("version " + j.value("version", nlohmann::json(0)).dump() + ", expected " + std::to_string(version));
    if (!j.contains("devices") || !j["devices"].is_object()) fail("\"devices\" must be an object");
    for (auto const& [dev, backends] : j["devices"].items()) {
      if (!backends.is_object()) fail("device '" + dev + "' must map backends to objects");
      for (auto const& [backend, groups] : backends.items()) {
        if (!groups.is_object()) fail("device '" + dev + "', backend '" + backend + "' must map group signatures to microseconds");
        for (auto const& [sig, us] : groups.items())
          if (!us.is_number() || us.get<double>() < 0) fail("device '" + dev + "', backend '" + backend + "', group '" + sig + "': the cost must be a number >= 0");
      }
    }
    doc_ = std::move(j);
  }

  std::filesystem::path const& path() const { return path_; }
  std::string const& device() const { return device_; }

  /// The cost in microseconds of `signature` on `backend` on this device, if measured.
  std::optional<double> find(std::string_view backend, std::string const& signature) const {
    auto const& devices = doc_["devices"];
    auto d = devices.find(device_);
    if (d == devices.end()) return std::nullopt;
    auto b = d->find(std::string(backend));
    if (b == d->end()) return std::nullopt;
    auto s = b->find(signature);
    if (s == b->end()) return std::nullopt;
    return s->get<double>();
  }
  /// Records a measurement. @throws Error for a cost that is not a finite number >= 0.
  void insert(std::string_view backend, std::string const& signature, double us) {
    if (!std::isfinite(us) || us < 0)
      throw Error("cost database: the cost of '" + signature + "' on " + std::string(backend) + " must be finite and >= 0, got " + std::to_string(us));
    doc_["devices"][device_][std::string(backend)][signature] = us;
  }
  /// Entries of this device.
  std::size_t size() const {
    auto const& devices = doc_["devices"];
    auto d = devices.find(device_);
    std::size_t n = 0;
    if (d != devices.end())
      for (auto const& [backend, groups] : d->items()) n += groups.size();
    return n;
  }

  /// Writes the file (every device). @throws Error when it cannot be written.
  void save() const {
    if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path());
    auto tmp = path_;
    tmp += ".tmp";
    {
      std::ofstream f(tmp);
      if (!f) throw Error("cost database '" + path_.string() + "': cannot write '" + tmp.string() + "'");
      f << doc_.dump(1) << "\n";
      if (!f) throw Error("cost database '" + path_.string() + "': writing '" + tmp.string() + "' failed");
    }
    std::filesystem::rename(tmp, path_);
  }

 private:
  std::filesystem::path path_;
  std::string device_;
  nlohmann::json doc_;
};

}  // namespace autograph::placement
