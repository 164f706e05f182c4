#pragma once
// A run's timeline as a Chrome trace (the JSON "Trace Event Format"), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one complete event ("ph": "X") per kernel,
// one track (tid) per stream, times in microseconds. The trace names the runtime that produced
// it, so a simulated timeline is never mistaken for a measured one.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "autograph/graph/graph.hpp"
#include "autograph/runtime/runtime.hpp"

namespace autograph {

template <class Set>
nlohmann::json chrome_trace(Graph<Set> const& g, Timeline const& t) {
  nlohmann::json events = nlohmann::json::array();
  events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", t.kind}}}});
  std::size_t streams = 0;
  for (auto const& k : t.kernels) streams = std::max<std::size_t>(streams, k.stream + 1);
  for (std::size_t s = 0; s < streams; ++s) {
    events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"name", "stream " + std::to_string(s)}}}});
    events.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"sort_index", s}}}});
  }
  for (auto const& k : t.kernels) {
    nlohmann::json args = {{"node", k.node}};
    if (g.contains(k.node)) {
      args["label"] = g.label(k.node);
      args["attributes"] = g[k.node].op.attributes();
      args["output"] = g[k.node].outputs.empty() ? std::string{} : g[k.node].outputs[0].to_string();
    }
    if (k.fill > 0) args["fill"] = k.fill;
    std::string name = g.contains(k.node) ? std::string(g[k.node].op_name()) : "node " + std::to_string(k.node);
    if (g.contains(k.node) && !g[k.node].name.empty()) name += " " + g[k.node].name;
    events.push_back({{"name", name},
                      {"cat", "kernel"},
                      {"ph", "X"},
                      {"ts", k.start_us},
                      {"dur", k.end_us - k.start_us},
                      {"pid", 0},
                      {"tid", k.stream},
                      {"args", std::move(args)}});
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"kind", t.kind}, {"total_us", t.total_us}, {"streams", t.streams}, {"waits", t.waits}}}};
}

template <class Set>
void write_chrome_trace(std::ostream& os, Graph<Set> const& g, Timeline const& t) {
  os << chrome_trace(g, t).dump(1) << "\n";
}

/// @throws Error when the file cannot be written.
template <class Set>
void write_chrome_trace(std::filesystem::path const& path, Graph<Set> const& g, Timeline const& t) {
  std::ofstream f(path);
  if (!f) throw Error("cannot write trace '" + path.string() + "'");
  write_chrome_trace(f, g, t);
}

}  // namespace autograph
