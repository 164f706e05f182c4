#pragma once
// Measured kernel times: a table loaded from JSON, keyed by device and operator signature,
// with the roofline answering for every signature the table lacks.
//
//   {
//     "format": "autograph-cost-table",
//     "version": 1,
//     "devices": {
//       "H100 SXM": {
//         "Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])": 12.5,
//         "Relu{}(f32[1,64,56,56])": {"us": 3.1}
//       }
//     }
//   }
//
// A signature is the op name, its attributes() and its input descriptors; times are
// microseconds. Entries may be a number or an object with "us" (and optionally "fill", the
// fraction of the device the kernel occupies; otherwise the roofline's estimate is used).
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "autograph/cost/roofline.hpp"

namespace autograph {

/// "Conv2D{s1,1 p1,1,1,1}(f32[1,64,56,56],f32[64,64,3,3])": how the cost table names a kernel.
inline std::string op_signature(AnyOp const& op, std::span<TensorDesc const> in) {
  std::string s(op.name());
  s += "{" + op.attributes() + "}(";
  for (std::size_t i = 0; i < in.size(); ++i) s += (i ? "," : "") + in[i].to_string();
  return s + ")";
}

class CostTable {
 public:
  struct Entry {
    double us = 0;
    std::optional<double> fill;
  };
  static constexpr std::string_view format = "autograph-cost-table";

  /// @throws Error naming the file and what is wrong with it.
  static CostTable load(std::filesystem::path const& path) {
    std::ifstream f(path);
    if (!f) throw Error("cannot open cost table '" + path.string() + "'");
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str(), path.string());
  }
  /// @throws Error naming `source` and what is wrong.
  static CostTable parse(std::string const& text, std::string const& source = "<string>") {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (nlohmann::json::parse_error const& e) {
      throw Error("cost table '" + source + "' is not valid JSON: " + e.what());
    }
    auto fail = [&](std::string const& why) { throw Error("cost table '" + source + "': " + why); };
    if (!j.is_object()) fail("the top level must be an object");
    if (j.value("format", std::string{}) != format) fail("\"format\" must be \"" + std::string(format) + "\"");
    if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != 1) fail("\"version\" must be 1");
    if (!j.contains("devices") || !j["devices"].is_object()) fail("\"devices\" must be an object of device name -> entries");
    CostTable t;
    for (auto const& [device, entries] : j["devices"].items()) {
      if (!entries.is_object()) fail("device '" + device + "' must map signatures to times");
      for (auto const& [sig, v] : entries.items()) {
        Entry e;
        if (v.is_number()) {
          e.us = v.get<double>();
        } else if (v.is_object() && v.contains("us") && v["us"].is_number()) {
          e.us = v["us"].get<double>();
          if (v.contains("fill")) {
            if (!v["fill"].is_number() || !(v["fill"].get<double>() > 0 && v["fill"].get<double>() <= 1))
              fail("device '" + device + "', '" + sig + "': \"fill\" must be a number in (0, 1]");
            e.fill = v["fill"].get<double>();
          }
        } else {
          fail("device '" + device + "', '" + sig + "': expected microseconds or {\"us\": ...}");
        }
        if (!(e.us >= 0) || !std::isfinite(e.us)) fail("device '" + device + "', '" + sig + "': time must be a finite number >= 0");
        t.devices_[device][sig] = e;
      }
    }
    return t;
  }

  void set(std::string const& device, std::string const& signature, Entry e) { devices_[device][signature] = e; }
  Entry const* find(std::string const& device, std::string const& signature) const {
    auto d = devices_.find(device);
    if (d == devices_.end()) return nullptr;
    auto it = d->second.find(signature);
    return it == d->second.end() ? nullptr : &it->second;
  }
  std::size_t size(std::string const& device) const {
    auto d = devices_.find(device);
    return d == devices_.end() ? 0 : d->second.size();
  }

  std::string dump(int indent = 2) const {
    nlohmann::json j{{"format", format}, {"version", 1}, {"devices", nlohmann::json::object()}};
    for (auto const& [device, entries] : devices_) {
      auto& d = j["devices"][device] = nlohmann::json::object();
      for (auto const& [sig, e] : entries) {
        if (e.fill) d[sig] = {{"us", e.us}, {"fill", *e.fill}};
        else d[sig] = e.us;
      }
    }
    return j.dump(indent);
  }
  void save(std::filesystem::path const& path) const {
    std::ofstream f(path);
    if (!f) throw Error("cannot write cost table '" + path.string() + "'");
    f << dump() << "\n";
  }

 private:
  std::map<std::string, std::map<std::string, Entry>, std::less<>> devices_;
};

/// Costs from a measured table for one device; the roofline for signatures it lacks.
class MeasuredCost {
 public:
  MeasuredCost(CostTable table, DeviceSpec const& device = devices::H100::spec)
      : state_(std::make_shared<State>(std::move(table), device)) {}

  DeviceSpec const& device() const { return state_->roofline.device(); }
  std::string describe() const {
    return "measured table (" + std::to_string(state_->table.size(std::string(device().name))) + " kernels), roofline fallback, " +
           std::string(device().name);
  }
  /// Signatures answered by the table and by the roofline so far.
  std::size_t measured_hits() const { return state_->hits; }
  std::size_t roofline_fallbacks() const { return state_->fallbacks; }

  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    if (!runs_kernel(op, in, out)) return {};
    return state_->cache.get(op, in, [&] {
      KernelCost roof = state_->roofline.estimate(op, in, out);
      auto const* e = state_->table.find(std::string(device().name), op_signature(op, in));
      if (!e) {
        ++state_->fallbacks;
        return roof;
      }
      ++state_->hits;
      // The bytes the roofline moves, over the measured time: the bandwidth it drew.
      double latency = std::min(device().launch_us, e->us);
      double roof_work = roof.us - roof.latency_us, work = e->us - latency;
      double drawn = work > 0 ? std::min(1.0, roof.bandwidth * roof_work / work) : 0;
      return KernelCost{e->us, e->fill.value_or(roof.fill), latency, drawn};
    });
  }

 private:
  struct State {
    State(CostTable t, DeviceSpec const& d) : table(std::move(t)), roofline(d) {}
    CostTable table;
    RooflineCost roofline;
    detail::SignatureCache cache;
    std::atomic<std::size_t> hits{0}, fallbacks{0};
  };
  std::shared_ptr<State> state_;
};

}  // namespace autograph
