// `autograph schedule`: schedule a model's kernels onto streams and simulate or measure the run.
//
//   autograph schedule --model inception_v3 --schedule nimble
//   autograph schedule --model nasnet_a_large --schedule ios --device h200 --trace ios.json --dot ios.dot
//   autograph schedule --model randwire --schedule greedy --runtime cpu
//   autograph schedule --model resnet50 --batch 8 --resolution 160
//
// Prints the streams, waits, the graph's width, how long the policy took, and the latency:
// simulated (an estimate from the roofline cost model; the report says so) or, with
// --runtime cpu, measured on this machine's cores (the policies that measure, greedy and IOS,
// then measure there too). --dot draws the
// graph with one colour per stream; --trace writes the simulated timeline as a Chrome trace
// (open it in ui.perfetto.dev).
#include <autograph/cost/device.hpp>
#include <autograph/cpu/runtime.hpp>
#include <autograph/io/chrome_trace.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/greedy_per_core.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/sequential.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"
#include "device_arg.hpp"
#include "output_file.hpp"

namespace {

using namespace autograph;

struct ScheduleOptions {
  std::string model;
  std::string policy = "nimble";
  std::string device = "h100";
  std::string runtime = "sim";
  std::size_t streams = 4;  // greedy
  std::int64_t batch = 0;   // 0: the model's default
  std::int64_t resolution = 0;  // image side of a CNN or ViT; 0: the published one
  cli::OutputFile dot{"--dot"}, trace{"--trace"};
};

/// One colour per stream (ColorBrewer Set3 and Pastel1), cycling past twenty.
std::string stream_color(std::size_t s) {
  static constexpr char const* palette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
                                            "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f", "#fbb4ae", "#b3cde3",
                                            "#ccebc5", "#decbe4", "#fed9a6", "#e5d8bd", "#fddaec", "#f2f2f2"};
  return palette[s % std::size(palette)];
}

/// Runs the policy with `rt` as its measurer, then simulates (SimulatedRuntime) or measures
/// (CpuRuntime) the schedule it made.
template <class R>
int run(ScheduleOptions const& o, R& rt) {
  models::ModelOptions mo;
  if (o.batch > 0) mo.batch = o.batch;
  if (o.resolution > 0) mo.resolution = o.resolution;
  Graph<> g = models::build(o.model, mo);
  ScheduledGraph<BuiltinOps> sg;
  std::string extra;
  if (o.policy == "sequential") {
    sg = schedule::Sequential{}(g, rt);
  } else if (o.policy == "greedy") {
    sg = schedule::Greedy{o.streams}(g, rt);
  } else if (o.policy == "nimble") {
    sg = schedule::Nimble{}(g, rt);
  } else if (o.policy == "greedy-per-core") {
    if constexpr (schedule::CoreCountingRuntime<R>)
      sg = schedule::GreedyPerCore{}(g, rt);
    else
      throw Error("schedule greedy-per-core puts one stream on each core of this machine: it needs --runtime cpu");
  } else if (o.policy == "ios") {
    auto r = schedule::Ios{}.run(g, rt);
    auto const& s = r.stats;
    extra = "  stages         " + std::to_string(r.stages.size()) + " (" + std::to_string(s.merges) + " convolution merges), estimate " +
            cli::fixed(s.estimated_ms, 4) + " ms (sum of stages)\n" + "  blocks         " + std::to_string(s.blocks) + " (" +
            std::to_string(s.natural_cuts) + " natural cuts, " + std::to_string(s.natural_plans_rejected) + " natural plans lost to level cuts, " +
            std::to_string(s.level_splits) + " cut for size, " + std::to_string(s.budget_splits) + " halved for budget), " +
            std::to_string(s.states) + " states, " + std::to_string(s.transitions) + " transitions, " + std::to_string(s.stages_measured) +
            " stages measured\n";
    sg = {std::move(r.graph), std::move(r.schedule), "ios", s.search_seconds};
  } else {
    throw Error("unknown schedule '" + o.policy + "' (known: sequential, greedy, greedy-per-core, nimble, ios)");
  }
  KernelDag dag(sg.graph);
  auto stats = check_schedule(dag, sg.schedule);
  Timeline timeline;
  std::string spread;
  if constexpr (requires { rt.simulate(sg.graph, sg.schedule); }) {
    timeline = rt.simulate(sg.graph, sg.schedule);
  } else {
    auto samples = rt.prepare(sg.graph).samples(sg.schedule);
    std::ranges::sort(samples);
    timeline.total_us = cpu::median(samples) * 1e3;
    spread = " (" + std::to_string(samples.size()) + " runs, " + cli::fixed(samples.front(), 4) + " to " + cli::fixed(samples.back(), 4) + " ms)";
  }
  std::string inputs;
  for (NodeId id : g.inputs()) inputs += (inputs.empty() ? "" : " ") + g[id].outputs[0].shape.to_string();
  std::cout << o.model << " scheduled by " << sg.policy << "\n"
            << "  input          " << inputs << "\n"
            << "  kernels        " << stats.kernels << " (width " << dag.width() << ")\n"
            << "  streams        " << stats.streams << "\n"
            << "  waits          " << stats.waits << "\n"
            << extra << "  search         " << cli::fixed(sg.search_seconds * 1e3, 3) << " ms\n"
            << "  latency        " << cli::fixed(timeline.total_us / 1e3, 4) << " ms" << spread << ", " << rt.kind() << "\n";
  if (o.dot.wanted()) {
    std::vector<std::string> color(sg.graph.id_bound());
    for (std::size_t s = 0; s < sg.schedule.streams.size(); ++s)
      for (auto const& l : sg.schedule.streams[s]) color[l.node] = stream_color(s);
    o.dot.write([&](std::ostream& f) {
      write_dot(f, sg.graph,
                {.fill_color = [&](NodeId id) { return color[id]; },
                 .title = o.model + " — " + sg.policy + ": " + std::to_string(stats.streams) + " streams, one colour each"});
    });
    std::cout << "  dot            " << o.dot.path << "\n";
  }
  if (o.trace.wanted() && !timeline.kernels.empty()) {
    o.trace.write([&](std::ostream& f) { write_chrome_trace(f, sg.graph, timeline); });
    std::cout << "  trace          " << o.trace.path << " (open in ui.perfetto.dev)\n";
  }
  return 0;
}

autograph::cli::Register schedule_cmd{{"schedule", "Schedule a model's kernels onto streams and simulate or measure the run", [](CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  app.add_option("--model", o->model, "A model of the zoo (see `autograph models`)")->required();
  app.add_option("--schedule", o->policy, "sequential, greedy, greedy-per-core (--runtime cpu), nimble or ios")
      ->check(CLI::IsMember({"sequential", "greedy", "greedy-per-core", "nimble", "ios"}));
  auto* device = app.add_option("--device", o->device, cli::device_names)->capture_default_str();
  app.add_option("--runtime", o->runtime, "sim (simulated GPU) or cpu (measured on this machine)")
      ->check(CLI::IsMember({"sim", "cpu"}))
      ->capture_default_str();
  app.add_option("--streams", o->streams, "Streams for the greedy schedule")->check(autograph::cli::positive_integer);
  app.add_option("--batch", o->batch, "Batch size (default: the benchmark's)")->check(autograph::cli::positive_integer);
  app.add_option("--resolution", o->resolution, "Image side for the CNNs and ViT (default: the published one)")
      ->check(autograph::cli::positive_integer);
  cli::add_output_option(app, "--dot", o->dot, "Write the graph as DOT, one colour per stream");
  cli::add_output_option(app, "--trace", o->trace, "Write the simulated timeline as a Chrome trace (JSON)");
  return [o, device] {
    if (o->runtime == "cpu" && device->count() > 0) throw Error("--device names a simulated GPU; --runtime cpu measures this machine");
    if (o->runtime == "cpu" && o->trace.wanted()) throw Error("--trace writes the simulated timeline; it needs --runtime sim");
    o->dot.check();
    o->trace.check();
    if (o->runtime == "cpu") {
      cpu::CpuRuntime rt;
      return run(*o, rt);
    }
    SimulatedRuntime<devices::AtRunTime> rt(cli::device_arg(o->device));
    return run(*o, rt);
  };
}}};

}  // namespace
