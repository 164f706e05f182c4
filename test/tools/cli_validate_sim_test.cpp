// `autograph validate-sim`: the simulator held against published latencies. The records here
// are made up (test/tools/data/validate_sim_records.json); what is checked is that the tool
// runs what it can, scores it as documented, names what it cannot run, and refuses bad files.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_tool.hpp"

namespace {

using namespace autograph::testing;

std::string records_file() { return (std::filesystem::path(__FILE__).parent_path() / "data" / "validate_sim_records.json").string(); }

/// The simulated latency (ms) the table prints for record `index`.
double simulated_ms(std::string const& out, int index) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first != std::to_string(index)) continue;
    std::string w, prev;
    int ms_seen = 0;
    while (words >> w) {
      if (w == "ms" && ++ms_seen == 2) return std::stod(prev);
      prev = w;
    }
  }
  ADD_FAILURE() << "no row for record " << index << " in\n" << out;
  return 0;
}

/// The simulated speedup the table prints for record `index` (its second "N.NNx").
double simulated_speedup(std::string const& out, int index) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first, w;
    words >> first;
    if (first != std::to_string(index)) continue;
    int seen = 0;
    while (words >> w)
      if (w.size() > 1 && w.back() == 'x' && (std::isdigit(static_cast<unsigned char>(w[0])) != 0) && ++seen == 2) return std::stod(w);
  }
  ADD_FAILURE() << "no speedup row for record " << index << " in\n" << out;
  return 0;
}

TEST(CliValidateSim, RunsWhatItCanAndScoresIt) {
  ScratchDir dir;
  auto r = run_tool({"validate-sim", records_file()}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  // The sequential record runs the engine's kernels (SqueezeNet's 26 ReLUs fused into the
  // convolutions before them: 38 of `schedule`'s 64 kernels), each issued from the host (3.8 us
  // a launch) instead of replayed from a CUDA graph: no faster than the host's 38 launches, no
  // slower than `schedule`'s unfused graph plus all of its launches.
  auto s = run_tool({"schedule", "--model", "squeezenet1_1", "--schedule", "sequential", "--device", "v100"}, dir, 120);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  double seq = simulated_ms(r.out, 0), greedy = simulated_ms(r.out, 1);
  double graph_ms = 0, kernels = 0;
  ASSERT_EQ(std::sscanf(s.out.substr(s.out.find("latency ")).c_str(), "latency %lf ms", &graph_ms), 1) << s.out;
  ASSERT_EQ(std::sscanf(s.out.substr(s.out.find("kernels ")).c_str(), "kernels %lf", &kernels), 1) << s.out;
  ASSERT_EQ(kernels, 64) << s.out;
  EXPECT_GE(seq, (kernels - 26) * 3.8e-3 - 1e-4) << s.out;
  EXPECT_LE(seq, graph_ms + kernels * 3.8e-3 + 1e-4) << s.out;
  EXPECT_LT(seq, graph_ms + 1e-4) << "fusing the ReLUs saves more than the host's launches cost\n" << s.out;

  // Paper A: two latencies (published 1 ms and 2 ms) and their pair.
  double abs_median = (std::abs(std::log(seq / 1.0)) + std::abs(std::log(greedy / 2.0))) / 2;
  double pair_error = std::abs(std::log((seq / greedy) / 0.5));
  bool ordered = seq < greedy;
  char line[256];
  std::snprintf(line, sizeof line, "  S1        |ln| latency %.3f", abs_median);
  EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  std::snprintf(line, sizeof line, "|ln| speedup %.3f (x%.2f, n=1)", pair_error, std::exp(pair_error));
  EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  EXPECT_NE(r.out.find(ordered ? "orderings 100% (1 of 1)" : "orderings 0% (0 of 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 pairs of latency records"), std::string::npos) << r.out;

  // Paper B: nothing runs, and each record says why.
  EXPECT_NE(r.out.find("not run (2 of 4 records)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model 'NMT' is not in the zoo"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'TVM-AutoTune': no model of TVM's kernels"), std::string::npos) << r.out;
}

void expect_refused(std::string const& content, std::string const& message) {
  ScratchDir dir;
  std::ofstream(dir / "bad.json") << content;
  auto r = run_tool({"validate-sim", dir / "bad.json"}, dir, 60);
  EXPECT_EQ(r.exit_code, 1) << content << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << "for " << content << " expected '" << message << "' in\n" << r.err;
  EXPECT_EQ(r.out, "") << "no partial table for a bad file";
}

TEST(CliValidateSim, RefusesBadFilesWithTheReason) {
  expect_refused("[", "not valid JSON");
  expect_refused("{}", "expected a JSON array of records, got a object");
  expect_refused("[3]", "record 0: expected an object");
  expect_refused(R"([{"source": "s", "model": "m", "config": "c", "kind": "latency", "value": 1}])", "record 0: 'gpu' is missing or not a string");
  expect_refused(R"([{"source": "s", "gpu": "V100", "model": "m", "config": "c", "kind": "latency", "value": -1}])",
                 "record 0: 'value' must be a positive number, got -1");
  expect_refused(R"([{"source": "s", "gpu": "V100", "model": "m", "config": "c", "kind": "guess", "value": 1}])", "record 0: unknown kind 'guess'");
  expect_refused(R"([{"source": "s", "gpu": "V100", "model": "m", "config": "c", "kind": "speedup_range", "value": [2, 1]}])",
                 "has low > high");
  expect_refused(R"([{"source": "s", "gpu": "V100", "batch": 0, "model": "m", "config": "c", "kind": "latency", "value": 1}])",
                 "'batch' must be a positive integer or null");
  ScratchDir dir;
  auto r = run_tool({"validate-sim", dir / "missing.json"}, dir, 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot open the file"), std::string::npos) << r.err;
}

TEST(CliValidateSim, RunsTheIosWorksSqueezeNetOnTheNetworkItsCodeBuilds) {
  // The IOS work's SqueezeNet records (named as the paper does or as the records file's
  // stand-in) run squeezenet_ios; another paper's squeezenet1_1 stays squeezenet1_1.
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "Sequential", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "SqueezeNet",
     "config": "Sequential / Greedy", "kind": "speedup_range", "value": [0.5, 2]},
    {"source": "Paper B", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1", "config": "Sequential", "kind": "latency",
     "value": 1, "unit": "ms"}])";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 120);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: sequential"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: greedy"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet1_1 batch 1 on v100: sequential"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("model names read as zoo models: S1 'SqueezeNet' -> squeezenet_ios; S1 'squeezenet1_1' -> squeezenet_ios;\n"),
            std::string::npos)
      << r.out;
  // IOS's network (1.19 GMACs, 30 convs) takes longer than SqueezeNet 1.1 (0.35 GMACs, 26 convs).
  EXPECT_GT(simulated_ms(r.out, 0), simulated_ms(r.out, 2)) << r.out;
}

TEST(CliValidateSim, RunsTheMetaflowPapersRecordsOnTheNetworksItsCodeBuilds) {
  // MetaFlow's code (jiazhihao/metaflow_sysml19) builds SqueezeNet as fire_complex modules and
  // ResNet-34 at 222 x 222, and RNNTC as 20 SRU steps: its records run squeezenet_ios and
  // resnet34 at 222 px and rnntc_metaflow.
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"([
    {"source": "Optimizing DNN Computation with Relaxed Graph Substitutions (Z. Jia et al., MLSys 2019) - MetaFlow", "gpu": "Tesla P100",
     "batch": null, "model": "squeezenet1_1", "config": "TensorRT", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "Optimizing DNN Computation with Relaxed Graph Substitutions (Z. Jia et al., MLSys 2019) - MetaFlow", "gpu": "Tesla P100",
     "batch": null, "model": "ResNet34", "config": "TensorRT", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "Optimizing DNN Computation with Relaxed Graph Substitutions (Z. Jia et al., MLSys 2019) - MetaFlow", "gpu": "Tesla P100",
     "batch": null, "model": "rnntc_sru", "config": "TensorRT", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "Paper B", "gpu": "Tesla P100", "batch": 1, "model": "rnntc_sru", "config": "TensorRT", "kind": "latency", "value": 1, "unit": "ms"}])";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 120);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios at 222 px batch default on p100: tensorrt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating resnet34 at 222 px batch default on p100: tensorrt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating rnntc_metaflow batch default on p100: tensorrt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating rnntc_sru batch 1 on p100: tensorrt"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("S1 'ResNet34' -> resnet34 at 222 px; S1 'rnntc_sru' -> rnntc_metaflow; S1 'squeezenet1_1' -> squeezenet_ios at 222 px;"),
            std::string::npos)
      << r.out;
  // MetaFlow's RNNTC: 60 products of 4 MB weights against the zoo's 31 of shared ones.
  EXPECT_GT(simulated_ms(r.out, 2), simulated_ms(r.out, 3)) << r.out;
}

TEST(CliValidateSim, RunsAScheduleOptimizedForAnotherBatchOrGpuAsTheIosThesisDoes) {
  // IOS's Table 4.2: a schedule searched at one batch size or on one GPU, run at another.
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"json([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "table": "T", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (schedule optimized for batch 1)", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "table": "T", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (schedule optimized for batch 32)", "kind": "latency", "value": 1.1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "table": "U", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (schedule optimized for K80)", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "table": "U", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (schedule optimized for TPU)", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "table": "U", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (schedule optimized for batch two)", "kind": "latency", "value": 1, "unit": "ms"}])json";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios...\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios (its schedule searched at batch 32)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios (its schedule searched on k80)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("3    S1   squeezenet1_1, IOS (schedule optimized for TPU): a schedule optimized for tpu, which has no device model"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("'IOS (schedule optimized for batch two)': 'two' is not a batch size"), std::string::npos) << r.out;
  // Searched for batch 1 on the simulator it runs on, the schedule is at least as fast at batch 1
  // as the one searched for batch 32: 1 pair of the table scored.
  EXPECT_LE(simulated_ms(r.out, 0), simulated_ms(r.out, 1) * (1 + 1e-9)) << r.out;
  EXPECT_NE(r.out.find("1 pairs of latency records"), std::string::npos) << r.out;
}

TEST(CliValidateSim, ScoresAModelsBestBlockAsTheIosThesisDoes) {
  // "M (per block)" with "A / B, best block": the largest A / B over M's blocks, each run alone.
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"json([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1 (per block)",
     "config": "sequential / IOS, best block", "kind": "speedup", "value": 1.5},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "sequential / IOS", "kind": "speedup", "value": 1.2}])json";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  // squeezenet_ios's blocks are its scopes: block1 (the stem) to block12 (the classifier).
  EXPECT_NE(r.err.find("simulating squeezenet_ios block block1 batch 1 on v100: sequential"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios block block11 batch 1 on v100: ios"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("(best block: block"), std::string::npos) << r.out;
  // The best block gains at least what the whole network gains.
  EXPECT_GE(simulated_speedup(r.out, 0), simulated_speedup(r.out, 1) * (1 - 1e-9)) << r.out;
}

TEST(CliValidateSim, IosGreedyRunsARandWireNodeAsOneOperator) {
  // IOS's RandWire node is one compound operator (rwconv2d: summed inputs, ReLU, depthwise and
  // pointwise convolutions in sequence), so its greedy schedule stages whole nodes, and beats
  // the sequential run on the V100 as the thesis measured; staged kernel by kernel it did not.
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"json([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "randwire_ws",
     "config": "Greedy faster than Sequential", "kind": "ordering", "value": 1}])json";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.out.find("ordering        A faster   A faster"), std::string::npos) << r.out;
}

TEST(CliValidateSim, RunsTheIosWorksTasoAsItsExperimentsDid) {
  // IOS's experiments ran TASO unoptimized on NASNet and SqueezeNet (experiments/latency/main.py:
  // 'taso_seq'), optimized elsewhere; and IOS's NASNet takes 331 x 331 inputs (nasnet_large()).
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"json([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS faster than TASO", "kind": "ordering", "value": 1},
    {"source": "Paper B", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1", "config": "TASO", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "nasnet_a_large",
     "config": "Sequential", "kind": "latency", "value": 1, "unit": "ms"}])json";
  auto r = run_tool({"validate-sim", dir / "records.json", "--time-limit", "2"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: taso_seq"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet1_1 batch 1 on v100: taso..."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating nasnet_a_large at 331 px batch 1 on v100: sequential"), std::string::npos) << r.err;
  // TASO's engine on the unoptimized graph launches a kernel per operator and copies every
  // concatenated input: IOS's schedule beats it, as the thesis reports.
  EXPECT_NE(r.out.find("ordering        A faster   A faster"), std::string::npos) << r.out;
}

TEST(CliValidateSim, RunsIosVariantsAndPruningAsNamed) {
  // IOS-Parallel (no merges), IOS-Merge (no concurrent groups) and "IOS (r=1, s=8)" (pruned).
  ScratchDir dir;
  std::ofstream(dir / "records.json") << R"json([
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS-Both", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS-Parallel", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS-Merge", "kind": "latency", "value": 1, "unit": "ms"},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "sequential / IOS (r=1, s=8)", "kind": "speedup", "value": 1.2},
    {"source": "IOS: Inter-Operator Scheduler for CNN Acceleration", "gpu": "Tesla V100", "batch": 1, "model": "squeezenet1_1",
     "config": "IOS (r=0, s=8)", "kind": "latency", "value": 1, "unit": "ms"}])json";
  auto r = run_tool({"validate-sim", dir / "records.json"}, dir, 300);
  ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios_parallel"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios_merge"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("simulating squeezenet_ios batch 1 on v100: ios (r=1, s=8)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("'IOS (r=0, s=8)': r and s must be at least 1"), std::string::npos) << r.out;
  // IOS-Both weighs every plan IOS-Parallel and IOS-Merge can make.
  EXPECT_LE(simulated_ms(r.out, 0), simulated_ms(r.out, 1) * (1 + 1e-9)) << r.out;
  EXPECT_LE(simulated_ms(r.out, 0), simulated_ms(r.out, 2) * (1 + 1e-9)) << r.out;
}

}  // namespace
