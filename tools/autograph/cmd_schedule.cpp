// `autograph schedule`: schedule a model's kernels onto streams and simulate the run.
//
//   autograph schedule --model inception_v3 --schedule nimble
//   autograph schedule --model nasnet_a_large --schedule ios --device h200 --trace ios.json --dot ios.dot
//
// Prints the streams, waits, the graph's width, how long the policy took, and the simulated
// latency (an estimate from the roofline cost model; the report says so). --dot draws the
// graph with one colour per stream; --trace writes the simulated timeline as a Chrome trace
// (open it in ui.perfetto.dev).
#include <autograph/cost/device.hpp>
#include <autograph/io/chrome_trace.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/sequential.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"

namespace {

using namespace autograph;

struct ScheduleOptions {
  std::string model;
  std::string policy = "nimble";
  std::string device = "h100";
  std::size_t streams = 4;  // greedy
  std::int64_t batch = 0;   // 0: the model's default
  std::string dot, trace;
};

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

/// One colour per stream (ColorBrewer Set3 and Pastel1), cycling past twenty.
std::string stream_color(std::size_t s) {
  static constexpr char const* palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
                                            "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#fbb4ae", "#b3cde3",
                                            "#ccebc5", "#decbe4", "#fed9a6", "#e5d8bd", "#fddaec", "#f2f2f2"};
  return palette[s % std::size(palette)];
}

template <Device D>
int run(ScheduleOptions const& o) {
  models::ModelOptions mo;
  if (o.batch > 0) mo.batch = o.batch;
  Graph<> g = models::build(o.model, mo);
  SimulatedRuntime<D> rt;
  ScheduledGraph<BuiltinOps> sg;
  std::string extra;
  if (o.policy == "sequential") {
    sg = schedule::Sequential{}(g, rt);
  } else if (o.policy == "greedy") {
    sg = schedule::Greedy{o.streams}(g, rt);
  } else if (o.policy == "nimble") {
    sg = schedule::Nimble{}(g, rt);
  } else if (o.policy == "ios") {
    auto r = schedule::Ios{}.run(g, rt);
    auto const& s = r.stats;
    extra = "  stages         " + std::to_string(r.stages.size()) + " (" + std::to_string(s.merges) + " convolution merges), estimate " +
            fixed(s.estimated_ms, 4) + " ms (sum of stages)\n" + "  blocks         " + std::to_string(s.blocks) + " (" +
            std::to_string(s.level_splits) + " cut for size, " + std::to_string(s.budget_splits) + " halved for budget), " +
            std::to_string(s.states) + " states, " + std::to_string(s.transitions) + " transitions, " + std::to_string(s.stages_measured) +
            " stages measured\n";
    sg = {std::move(r.graph), std::move(r.schedule), "ios", s.search_seconds};
  } else {
    throw Error("unknown schedule '" + o.policy + "' (known: sequential, greedy, nimble, ios)");
  }
  KernelDag dag(sg.graph);
  auto stats = check_schedule(dag, sg.schedule);
  auto timeline = rt.simulate(sg.graph, sg.schedule);
  std::cout << o.model << " scheduled by " << sg.policy << "\n"
            << "  kernels        " << stats.kernels << " (width " << dag.width() << ")\n"
            << "  streams        " << stats.streams << "\n"
            << "  waits          " << stats.waits << "\n"
            << extra << "  search         " << fixed(sg.search_seconds * 1e3, 3) << " ms\n"
            << "  latency        " << fixed(timeline.total_us / 1e3, 4) << " ms, " << rt.kind() << "\n";
  if (!o.dot.empty()) {
    std::vector<std::string> color(sg.graph.id_bound());
    for (std::size_t s = 0; s < sg.schedule.streams.size(); ++s)
      for (auto const& l : sg.schedule.streams[s]) color[l.node] = stream_color(s);
    std::ofstream f(o.dot);
    if (!f) throw Error("cannot write '" + o.dot + "'");
    write_dot(f, sg.graph,
              {.fill_color = [&](NodeId id) { return color[id]; },
               .title = o.model + " — " + sg.policy + ": " + std::to_string(stats.streams) + " streams, one colour each"});
    std::cout << "  dot            " << o.dot << "\n";
  }
  if (!o.trace.empty()) {
    write_chrome_trace(std::filesystem::path(o.trace), sg.graph, timeline);
    std::cout << "  trace          " << o.trace << " (open in ui.perfetto.dev)\n";
  }
  return 0;
}

autograph::cli::Register reg{{"schedule", "Schedule a model's kernels onto streams and simulate the run", [](CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  app.add_option("--model", o->model, "A model of the zoo (see `autograph models`)")->required();
  app.add_option("--schedule", o->policy, "sequential, greedy, nimble or ios")
      ->check(CLI::IsMember({"sequential", "greedy", "nimble", "ios"}));
  app.add_option("--device", o->device, "h100, h200, a100, v100 or rtx2080ti");
  app.add_option("--streams", o->streams, "Streams for the greedy schedule")->check(CLI::PositiveNumber);
  app.add_option("--batch", o->batch, "Batch size (default: the benchmark's)")->check(CLI::PositiveNumber);
  app.add_option("--dot", o->dot, "Write the graph as DOT, one colour per stream");
  app.add_option("--trace", o->trace, "Write the simulated timeline as a Chrome trace (JSON)");
  return [o] {
    std::string key(device_spec(o->device).key);
    if (key == "h100") return run<devices::H100>(*o);
    if (key == "h200") return run<devices::H200>(*o);
    if (key == "a100") return run<devices::A100>(*o);
    if (key == "v100") return run<devices::V100>(*o);
    return run<devices::RTX2080Ti>(*o);
  };
}}};

}  // namespace
