// Schedules of the benchmark models: Nimble's streams are chains that enforce every
// dependency with no implied wait; IOS's schedule is valid and runs no slower than
// sequential. Stream, wait and width counts are printed for the report.
#include <autograph/models/inception_v3.hpp>
#include <autograph/models/nasnet.hpp>
#include <autograph/models/randwire.hpp>
#include <autograph/models/squeezenet.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <autograph/schedule/ios.hpp>
#include <autograph/schedule/nimble.hpp>
#include <autograph/schedule/sequential.hpp>
#include <gtest/gtest.h>

#include <iostream>

namespace autograph {
namespace {

/// Fast oracle for big graphs: dropping any one wait makes check_schedule fail.
bool every_wait_needed(KernelDag const& dag, Schedule const& s) {
  for (std::size_t t = 0; t < s.streams.size(); ++t)
    for (std::size_t i = 0; i < s.streams[t].size(); ++i)
      for (std::size_t w = 0; w < s.streams[t][i].waits.size(); ++w) {
        Schedule fewer = s;
        auto& waits = fewer.streams[t][i].waits;
        waits.erase(waits.begin() + static_cast<std::ptrdiff_t>(w));
        try {
          check_schedule(dag, fewer);
          return false;
        } catch (ScheduleError const&) {
        }
      }
  return true;
}

Graph<> build(std::string_view name) {  // the four networks of the IOS paper (the zoo's header builds every model)
  if (name == "inception_v3") return models::inception_v3();
  if (name == "squeezenet1_1") return models::squeezenet1_1();
  if (name == "nasnet_a_mobile") return models::nasnet_a_mobile();
  return models::randwire_ws();
}

class ModelSchedules : public ::testing::TestWithParam<std::string_view> {};

TEST_P(ModelSchedules, NimbleStreamsAreChainsWithOnlyNecessaryWaits) {
  auto g = build(GetParam());
  KernelDag dag(g);
  auto s = schedule::nimble(dag);
  ASSERT_NO_THROW(check_schedule(dag, s));
  for (auto const& stream : s.streams)
    for (std::size_t i = 1; i < stream.size(); ++i) ASSERT_TRUE(dag.reaches(dag.index(stream[i - 1].node), dag.index(stream[i].node)));
  std::size_t cross_stream_producers = 0;
  HappensBefore hb;
  hb.build(s);
  for (std::size_t k = 0; k < dag.size(); ++k)
    for (std::uint32_t p : dag.preds(k)) cross_stream_producers += hb.stream(dag.node(p)) != hb.stream(dag.node(k));
  std::size_t width = dag.width();
  EXPECT_GE(s.num_streams(), width);
  EXPECT_LE(s.num_waits(), cross_stream_producers);
  EXPECT_TRUE(every_wait_needed(dag, s));
  std::cout << "[ " << GetParam() << " ] kernels " << dag.size() << ", width " << width << ", nimble streams " << s.num_streams() << ", waits "
            << s.num_waits() << " (Nimble's code: " << cross_stream_producers << ")\n";
}

INSTANTIATE_TEST_SUITE_P(Zoo, ModelSchedules, ::testing::Values("inception_v3", "squeezenet1_1", "nasnet_a_mobile", "randwire_ws"),
                         [](auto const& info) { return std::string(info.param); });

TEST(ModelSchedules, IosOnSqueezeNetIsValidAndNoSlowerThanSequential) {
  auto g = models::squeezenet1_1();
  SimulatedRuntime<> rt;
  auto r = schedule::Ios{}.run(g, rt);
  KernelDag dag(r.graph);
  ASSERT_NO_THROW(check_schedule(dag, r.schedule));
  double ios = rt.measure(r.graph, r.schedule), sequential = rt.measure(g, schedule::sequential(KernelDag(g)));
  EXPECT_LT(ios, sequential);
  std::cout << "[ squeezenet1_1 ] IOS: " << r.stages.size() << " stages, " << r.stats.merges << " merges, search " << r.stats.search_seconds
            << " s, " << ios << " ms simulated (sequential " << sequential << " ms)\n";
}

}  // namespace
}  // namespace autograph
