// The CUDA runtime's capture and replay, proven on the CPU: the real lowering, memory plan,
// GraphExecutable and CudaGraphRuntime::prepare/measure, linked against the recording CUDA
// runtime (recording.hpp) instead of libcudart/libcudnn/libcublasLt, under every schedule
// policy on zoo models; then check() proves the recording free of illegal calls during
// capture, unrecorded waits, unjoined forks and unordered conflicting accesses. Faults
// injected into the recording (a skipped wait, record or join) must be reported.
#include <gtest/gtest.h>

#include <chrono>

#include "autograph/cuda/runtime.hpp"
#include "autograph/models/zoo.hpp"
#include "autograph/runtime/simulated_runtime.hpp"
#include "autograph/schedule/greedy.hpp"
#include "autograph/schedule/ios.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "recording.hpp"

namespace autograph::cuda {
namespace {

using recording::Call;
using recording::recorder;
using recording::Report;

CudaGraphRuntime& runtime() {
  static CudaGraphRuntime rt;
  return rt;
}

struct Scheduled {
  Graph<> graph;
  Schedule schedule;
};

/// `g` scheduled by `policy`, with simulated kernel times where the policy needs them (IOS
/// may merge convolutions: its graph is the one to run).
Scheduled schedule_by(std::string_view policy, Graph<> g) {
  SimulatedRuntime<> sim;
  if (policy == "ios") {
    auto r = schedule::Ios{}.run(g, sim);
    return {std::move(r.graph), std::move(r.schedule)};
  }
  KernelDag dag(g);
  Schedule s;
  if (policy == "sequential") s = schedule::sequential(dag);
  else if (policy == "nimble") s = schedule::nimble(dag);
  else {
    auto prepared = sim.prepare(g);
    s = schedule::greedy(dag, schedule::detail::kernel_times_ms(dag, prepared), 4);
  }
  return {std::move(g), std::move(s)};
}

Graph<> model(std::string_view name, std::int64_t resolution) {
  return models::build(std::string(name), {.batch = 1, .resolution = resolution, .weight_seed = 3});
}

/// Lowers, builds the executable (warm-up run, capture), replays it once and checks the recording.
Report record(Scheduled const& m, ExecOptions exec = {}, bool replay = true) {
  auto lowered = runtime().lower(m.graph, {.random_weights = 1});
  recorder().reset();
  {
    GraphExecutable exe(lowered, m.schedule, exec);
    if (replay) {
      exe.launch();
      exe.synchronize();
    }
  }
  return recording::check(recorder());
}

// ---- the checker on hand-made recordings ------------------------------------------------------

std::vector<Call> calls(std::initializer_list<std::tuple<Call::Kind, int, int>> spec) {
  std::vector<Call> out;
  for (auto [kind, stream, event] : spec) {
    Call& c = out.emplace_back();
    c.kind = kind;
    c.name = "call";
    c.stream = reinterpret_cast<cudaStream_t>(static_cast<std::uintptr_t>(stream * 16));
    c.event = reinterpret_cast<cudaEvent_t>(static_cast<std::uintptr_t>(event * 16));
    c.in_node = true;
  }
  return out;
}
using K = Call::Kind;

TEST(RecordingChecker, FlagsAnAllocationDuringCapture) {
  auto r = recording::check(calls({{K::begin_capture, 1, 0}, {K::stream_synchronize, 1, 0}, {K::end_capture, 1, 0}}), {});
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_NE(r.violations[0].find("not allowed while"), std::string::npos);
}

TEST(RecordingChecker, FlagsAWaitForAnEventNotRecordedInTheCapture) {
  auto r = recording::check(calls({{K::event_record, 1, 7}, {K::begin_capture, 1, 0}, {K::stream_wait_event, 1, 7}, {K::end_capture, 1, 0}}), {});
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_NE(r.violations[0].find("recorded outside this capture"), std::string::npos);
}

TEST(RecordingChecker, FlagsAnUnjoinedFork) {
  auto c = calls({{K::begin_capture, 1, 0}, {K::event_record, 1, 5}, {K::stream_wait_event, 2, 5}, {K::end_capture, 1, 0}});
  auto r = recording::check(c, {});
  ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
  EXPECT_NE(r.violations[0].find("not joined back"), std::string::npos);
}

TEST(RecordingChecker, FlagsUnorderedWritesAndAcceptsOrderedOnes) {
  // Stream 2 forks from 1; both write [0x100, 0x200); ordered only when 1 waits for 2's event.
  for (bool ordered : {false, true}) {
    auto c = calls({{K::begin_capture, 1, 0}, {K::event_record, 1, 5}, {K::stream_wait_event, 2, 5}, {K::kernel, 2, 0}, {K::event_record, 2, 6},
                    {K::kernel, 1, 0}, {K::stream_wait_event, 1, 6}, {K::end_capture, 1, 0}});
    c[3].accesses = {{{0x100, 0x200}, true}};
    c[5].accesses = {{{0x180, 0x280}, true}};
    if (ordered) std::swap(c[5], c[6]);
    auto r = recording::check(c, {{0x100, 0x300}});
    if (ordered) {
      EXPECT_TRUE(r.ok()) << r.to_string();
      EXPECT_EQ(r.ordered_pairs, 1u);
    } else {
      ASSERT_EQ(r.violations.size(), 1u) << r.to_string();
      EXPECT_NE(r.violations[0].find("race in capture 1"), std::string::npos);
    }
  }
}

// ---- the runtime's real capture path ----------------------------------------------------------

TEST(RecordingRuntime, CapturesASmallModelWithoutViolations) {
  Scheduled m = schedule_by("nimble", model("squeezenet1_1", 64));
  Report r = record(m);
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
  EXPECT_GT(r.captured_work, m.schedule.num_kernels() / 2);
  EXPECT_GT(r.ordered_pairs, 0u);
}

/// The zoo under every policy: (model, resolution) x policy, every entry but those marked
/// skip_in_sweeps (over 100 M weights, DETR's deeper copies of detr_r50_e3, IOS's SqueezeNet).
class RecordingZoo : public ::testing::TestWithParam<std::tuple<std::string_view, std::string_view>> {};

TEST_P(RecordingZoo, CaptureIsLegalAndRaceFree) {
  auto [name, policy] = GetParam();
  auto t0 = std::chrono::steady_clock::now();
  Scheduled m = schedule_by(policy, model(name, name == "inception_v3" ? 96 : 64));
  auto t1 = std::chrono::steady_clock::now();
  Report r = record(m);
  auto t2 = std::chrono::steady_clock::now();
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 1u);
  EXPECT_EQ(r.streams, 1 + static_cast<std::size_t>(std::ranges::count_if(m.schedule.streams, [](auto const& s) { return !s.empty(); })));
  std::printf("[ recorded ] %-16s %-10s %4zu kernels, %2zu streams, %4zu waits: %s (schedule %.1f s, record+check %.1f s)\n",
              std::string(name).c_str(), std::string(policy).c_str(), m.schedule.num_kernels(), m.schedule.num_streams(), m.schedule.num_waits(),
              r.to_string().c_str(), std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
}

INSTANTIATE_TEST_SUITE_P(Zoo, RecordingZoo,
                         ::testing::Combine(::testing::Values("inception_v3", "nasnet_a_mobile", "nasnet_a_large", "randwire_ws", "squeezenet1_1",
                                                              "resnet34", "resnet50", "resnext50_32x4d", "rnntc_sru", "bert",
                                                              "bert_encoder_8x1024", "vit_b_16", "detr_r50_e3", "setr_naive_base"),
                                            ::testing::Values("sequential", "greedy", "nimble", "ios")),
                         [](auto const& info) { return std::string(std::get<0>(info.param)) + "_" + std::string(std::get<1>(info.param)); });

// ---- injected faults must be reported -----------------------------------------------------------

/// Waits per enqueue of `s`: the fork waits, the launches' waits, the join waits.
struct WaitCounts {
  std::size_t forks = 0, launches = 0;
};
WaitCounts waits(Schedule const& s) {
  WaitCounts w;
  for (auto const& st : s.streams) {
    if (!st.empty()) ++w.forks;
    for (auto const& l : st) w.launches += l.waits.size();
  }
  return w;
}

TEST(RecordingFaults, EverySkippedWaitBetweenKernelsIsARace) {
  Scheduled m = schedule_by("nimble", model("inception_v3", 96));
  auto lowered = runtime().lower(m.graph, {.random_weights = 1});
  WaitCounts w = waits(m.schedule);
  ASSERT_GT(w.launches, 0u);
  std::size_t caught = 0;
  for (std::size_t j = 0; j < w.launches; ++j) {
    recorder().reset();
    recorder().drop_wait(w.forks + j);  // no warm-up: the capture's waits are the first
    { GraphExecutable exe(lowered, m.schedule, {.warm_up = false}); }
    Report r = recording::check(recorder());
    caught += !r.ok();
    if (r.ok()) ADD_FAILURE() << "dropping launch wait " << j << " went unnoticed";
    else EXPECT_NE(r.violations[0].find("race in capture"), std::string::npos) << r.to_string();
  }
  std::printf("[ faults   ] inception_v3 nimble: %zu of %zu dropped waits reported\n", caught, w.launches);
}

TEST(RecordingFaults, ASkippedForkWaitLeavesAStreamOutsideTheCapture) {
  Scheduled m = schedule_by("nimble", model("nasnet_a_mobile", 64));
  auto lowered = runtime().lower(m.graph, {.random_weights = 1});
  // A stream whose first launch waits for nothing joins the capture only through its fork
  // wait (one whose first launch waits joins through that wait, which CUDA accepts too).
  std::size_t fork = 0, used = 0;
  bool found = false;
  for (auto const& st : m.schedule.streams) {
    if (st.empty()) continue;
    if (st.front().waits.empty()) {
      fork = used;
      found = true;
      break;
    }
    ++used;
  }
  ASSERT_TRUE(found);
  recorder().reset();
  recorder().drop_wait(fork);
  { GraphExecutable exe(lowered, m.schedule, {.warm_up = false}); }
  Report r = recording::check(recorder());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.to_string().find("outside the capture"), std::string::npos) << r.to_string();
}

TEST(RecordingFaults, ASkippedJoinLeavesAStreamUnjoined) {
  Scheduled m = schedule_by("ios", model("randwire_ws", 64));
  auto lowered = runtime().lower(m.graph, {.random_weights = 1});
  WaitCounts w = waits(m.schedule);
  ASSERT_GT(w.forks, 1u);
  // Each join dropped in turn. A stream whose last kernel another stream waits for is still
  // joined through that stream, so its join may go unreported; at least one is not such a stream.
  std::size_t reported = 0;
  for (std::size_t j = 0; j < w.forks; ++j) {
    recorder().reset();
    recorder().drop_wait(w.forks + w.launches + j);  // the capture's waits: forks, launches, then joins
    { GraphExecutable exe(lowered, m.schedule, {.warm_up = false}); }
    Report r = recording::check(recorder());
    if (r.ok()) continue;
    ++reported;
    EXPECT_NE(r.to_string().find("not joined back"), std::string::npos) << r.to_string();
  }
  EXPECT_GT(reported, 0u);
  std::printf("[ faults   ] randwire_ws ios: %zu of %zu dropped joins reported\n", reported, w.forks);
}

TEST(RecordingFaults, ASkippedRecordIsAWaitForAnEventNotRecordedInTheCapture) {
  Scheduled m = schedule_by("nimble", model("inception_v3", 96));
  auto lowered = runtime().lower(m.graph, {.random_weights = 1});
  for (bool warm_up : {false, true}) {
    recorder().reset();
    // Records per enqueue: the fork, then the kernels' events; with a warm-up, the capture's
    // come after the warm-up's (one fork, one per awaited kernel, one join per stream).
    std::size_t awaited = 0, used = 0;
    std::set<NodeId> events;
    for (auto const& st : m.schedule.streams) {
      used += !st.empty();
      for (auto const& l : st) events.insert(l.waits.begin(), l.waits.end());
    }
    awaited = events.size();
    recorder().drop_record((warm_up ? 1 + awaited + used : 0) + 1);  // the first kernel's event in the capture
    { GraphExecutable exe(lowered, m.schedule, {.warm_up = warm_up}); }
    Report r = recording::check(recorder());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.to_string().find(warm_up ? "recorded outside this capture" : "never recorded"), std::string::npos) << r.to_string();
  }
}

// ---- the measuring path: CudaGraphRuntime::prepare and partial schedules -------------------------

TEST(RecordingRuntime, MeasuringPartialSchedulesIsLegalAndRaceFree) {
  Graph<> g = model("nasnet_a_mobile", 64);
  KernelDag dag(g);
  auto prepared = runtime().prepare(g);
  recorder().reset();
  // IOS times stages like these: a few kernels (the others count as done), the empty schedule.
  std::vector<NodeId> first(dag.nodes().begin(), dag.nodes().begin() + 3);
  prepared.measure(schedule::stage_schedule({first}));
  prepared.measure(Schedule{});
  prepared.measure(schedule::nimble(dag));
  Report r = recording::check(recorder());
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_EQ(r.captures, 3u);
}

TEST(RecordingRuntime, IosSearchingOnTheRecordingRuntimeIsLegalAndRaceFree) {
  Graph<> g = model("squeezenet1_1", 32);
  recorder().reset();
  auto res = schedule::Ios{}.run(g, runtime());
  Report r = recording::check(recorder());
  EXPECT_TRUE(r.ok()) << r.to_string();
  EXPECT_GT(r.captures, 3u);
  std::printf("[ ios      ] squeezenet1_1 searched on the recording runtime: %s\n", r.to_string().c_str());
}

}  // namespace
}  // namespace autograph::cuda
