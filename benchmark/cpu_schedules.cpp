// cpu_schedules: the stream schedules of one graph, measured side by side on this CPU.
//
//   cpu_schedules [--models nasnet_a_mobile,randwire_ws] [--rounds 7] [--runs 10] [--streams 3,4]
//                 [--resolution 64]
//
// For each model (batch 1, as built), one executable per schedule on cpu::CpuRuntime, timed in
// interleaved rounds (the order rotating each round; `--runs` timed runs after one warm-up
// each), so that every schedule sees the same stretches of the machine. Printed per schedule:
// streams, the median of all its runs, and the median over rounds of sequential's round median
// over its own (> 1: faster than one stream), and the lowest and highest round median (a
// schedule whose runs are bimodal shows it there). The schedules:
//   sequential         one stream, every core per kernel (the benchmark's baseline);
//   nimble             Nimble's streams (one per chain: the graph's width);
//   greedy-estimated   list scheduling onto one stream per core (schedule/greedy_per_core.hpp),
//                      the kernels' times the runtime's cost model's estimates (the roofline);
//   greedy-per-core    the same with each kernel signature timed alone once (CpuRuntime's
//                      default, CpuRuntimeOptions::time_kernels);
//   greedy-measured    the same onto as many streams, every kernel timed alone (Greedy, the
//                      runtime's runs per kernel, nothing kept);
//   greedy-N           with --streams N: greedy-per-core's list scheduling onto N streams
//                      instead of one per core (stream counts between the cores and the
//                      graph's width, which Nimble's one per chain reaches).
#include <autograph/cpu/runtime.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/schedule/greedy.hpp>
#include <autograph/schedule/greedy_per_core.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/sequential.hpp>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  using namespace autograph;
  CLI::App app{"cpu_schedules: stream schedules of one graph measured side by side on this CPU"};
  std::vector<std::string> model_names{"inception_v3", "nasnet_a_mobile", "randwire_ws", "resnet50", "bert"};
  int rounds = 7, runs = 10;
  app.add_option("--models", model_names, "zoo models (autograph models)")->delimiter(',');
  app.add_option("--rounds", rounds, "interleaved rounds")->check(CLI::PositiveNumber);
  app.add_option("--runs", runs, "timed runs of each schedule per round")->check(CLI::PositiveNumber);
  std::optional<std::int64_t> resolution;
  app.add_option("--resolution", resolution, "image side of the CNNs (default: each model's published one)")->check(CLI::PositiveNumber);
  std::vector<int> stream_counts;
  app.add_option("--streams", stream_counts, "also greedy-per-core's scheduling onto these stream counts")->delimiter(',')->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  try {
    for (auto const& m : model_names) models::model_info(m);  // unknown names fail before any work
    cpu::CpuRuntime cpu;
    cpu::CpuRuntimeOptions estimates;
    estimates.time_kernels = false;
    cpu::CpuRuntime estimating(estimates);
    std::printf("measured on %s; %d interleaved rounds of %d runs each\n", cpu.kind().c_str(), rounds, runs);
    for (auto const& name : model_names) {
      Graph<> g = models::build(name, {.batch = 1, .resolution = resolution});
      std::vector<ScheduledGraph<BuiltinOps>> plans{schedule::Sequential{}(g, cpu), schedule::Nimble{}(g, cpu), schedule::GreedyPerCore{}(g, estimating),
                                                    schedule::GreedyPerCore{}(g, cpu),
                                                    schedule::Greedy{.streams = static_cast<std::size_t>(cpu.cores())}(g, cpu)};
      plans[2].policy = "greedy-estimated";
      plans.back().policy = "greedy-measured";
      for (int n : stream_counts) {
        KernelDag dag(g);
        auto ms = cpu.kernel_times_ms(g, dag);
        plans.push_back({g, schedule::greedy(dag, ms, static_cast<std::size_t>(n)), "greedy-" + std::to_string(n), 0});
      }
      std::vector<cpu::CpuExecutable> exes;
      for (auto const& p : plans) exes.push_back(cpu.ready_to_time(p.graph, p.schedule));
      std::vector<std::vector<double>> all(plans.size()), per_round(plans.size());
      for (int r = 0; r < rounds; ++r)
        for (std::size_t i = 0; i < plans.size(); ++i) {
          std::size_t k = (i + static_cast<std::size_t>(r)) % plans.size();
          auto t = exes[k].time(1, runs);
          per_round[k].push_back(cpu::median(t));
          all[k].insert(all[k].end(), t.begin(), t.end());
        }
      std::printf("\n%s\n%-18s %8s %12s %17s %22s %12s\n", name.c_str(), "schedule", "streams", "median ms", "rounds' medians", "vs sequential (rounds)",
                  "schedule s");
      for (std::size_t k = 0; k < plans.size(); ++k) {
        std::vector<double> ratio;
        for (int r = 0; r < rounds; ++r) ratio.push_back(per_round[0][r] / per_round[k][r]);
        auto [low, high] = std::ranges::minmax(per_round[k]);
        std::printf("%-18s %8zu %12.3f %8.3f-%-8.3f %21.3fx %12.3f\n", plans[k].policy.c_str(), plans[k].schedule.streams.size(), cpu::median(all[k]), low,
                    high, cpu::median(ratio), plans[k].search_seconds);
      }
      std::fflush(stdout);
    }
  } catch (std::exception const& e) {
    std::fprintf(stderr, "cpu_schedules: %s\n", e.what());
    return 1;
  }
}
