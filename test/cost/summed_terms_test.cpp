// IOS's engine sums a term of values in one kernel (cost/summed_terms.hpp, launch::IosEngine::
// term_sum_inputs): which Adds form terms, the kernels a term launches, and what the simulated
// runtime issues and prices for a chain of binary Adds on IOS's engine and on the others.
#include <autograph/graph/builder.hpp>
#include <autograph/runtime/simulated_runtime.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace summed_terms_test {

/// Fixed costs: an Add 1 us plus 1 us per tensor it reads (a binary add 3 us, a sum of four
/// values 5 us), a copy (Identity) 1 us, anything else 1 us; 0.5 us of each is latency.
struct FixedCosts {
  // Not an empty type: GCC 12 at -O1 (the tests' level in a Release build) takes an empty
  // model, passed on by reference, for uninitialized memory (a false -Wmaybe-uninitialized).
  double us_per_add_input = 1;
  KernelCost estimate(AnyOp const& op, std::span<TensorDesc const> in, std::span<TensorDesc const>) const {
    double us = op.is<Add>() ? 1 + us_per_add_input * static_cast<double>(in.size()) : 1;
    return {us, 0.2, 0.5};
  }
  std::string describe() const { return "fixed costs"; }
};

using Ios = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::IosEngine>;
using MetaFlow = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::MetaFlowEngine>;
using Hosted = SimulatedRuntime<devices::V100, schedule::Nimble, FixedCosts, launch::HostLaunched>;
constexpr double issue = devices::V100::spec.host_launch_us;

static_assert(launch::IosEngine::term_sum_inputs == 5 && launch::MetaFlowEngine::term_sum_inputs == 0 &&
              launch::HostLaunched::term_sum_inputs == 0 && launch::CudaGraph::term_sum_inputs == 0);

/// `n` inputs of one shape summed by a chain of binary Adds, ((x0 + x1) + x2) + ..., then a ReLU.
struct Chain {
  Graph<> g;
  std::vector<Value> xs, sums;
  Value relu;
  Schedule one_stream() const {
    Schedule s{{{}}};
    for (Value v : sums) s.streams[0].push_back({v.node, {}});
    s.streams[0].push_back({relu.node, {}});
    return s;
  }
};
Chain chain(int n) {
  GraphBuilder b;
  Chain c;
  for (int i = 0; i < n; ++i) c.xs.push_back(b.input("x" + std::to_string(i), {1, 8, 4, 4}));
  Value sum = c.xs[0];
  for (int i = 1; i < n; ++i) c.sums.push_back(sum = b.add(sum, c.xs[static_cast<std::size_t>(i)]));
  c.relu = b.relu(sum);
  c.g = std::move(b).build({c.relu});
  return c;
}

TEST(SummedTerms, AChainOfAddsWhoseInnerSumsHaveNoOtherReaderIsOneTermOfItsLeaves) {
  auto c = chain(4);
  auto t = summed_terms(c.g);
  EXPECT_TRUE(t.is_inner(c.sums[0].node));
  EXPECT_TRUE(t.is_inner(c.sums[1].node));
  EXPECT_FALSE(t.is_inner(c.sums[2].node));
  ASSERT_NE(t.term(c.sums[2].node), nullptr);
  EXPECT_EQ(*t.term(c.sums[2].node), c.xs);  // left to right
  EXPECT_EQ(t.term(c.sums[0].node), nullptr);
  EXPECT_EQ(t.term(c.relu.node), nullptr);
}

TEST(SummedTerms, ASumReadElsewhereABroadcastAddAndAGraphOutputEndATerm) {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 4, 4});
  auto y = b.input("y", {1, 8, 4, 4});
  auto bias = b.input("bias", {1, 8, 1, 1});
  auto shared = b.add(x, y);                 // read by the next Add and by a ReLU
  auto s = b.add(b.add(shared, x), y);       // a term of shared, x, y
  auto r = b.relu(shared);
  auto biased = b.add(b.add(x, y), bias);    // a broadcast Add: no term; x + y stays an Add
  auto doubled = b.add(y, x);
  auto twice = b.add(doubled, doubled);      // reads `doubled` twice: not folded
  auto out = b.add(x, x);                    // a graph output, read by the next Add too
  auto after = b.add(out, y);
  auto g = std::move(b).build({s, r, biased, twice, out, after});
  auto t = summed_terms(g);
  EXPECT_FALSE(t.is_inner(shared.node));
  ASSERT_NE(t.term(s.node), nullptr);
  EXPECT_EQ(*t.term(s.node), (std::vector<Value>{shared, x, y}));
  EXPECT_FALSE(is_plain_sum(g, biased.node));
  EXPECT_FALSE(t.is_inner(g[biased.node].inputs[0].node));
  EXPECT_FALSE(t.is_inner(doubled.node));
  EXPECT_EQ(t.term(twice.node), nullptr);  // two values: an Add as it is
  EXPECT_FALSE(t.is_inner(out.node));
  EXPECT_EQ(t.term(after.node), nullptr);
}

TEST(IosEngine, ATermOfUpToFiveValuesIsOneKernelAndALongerOneACallPerValue) {
  TensorDesc d{Shape{1, 8, 4, 4}, DType::float32};
  std::vector<TensorDesc> five(5, d), six(6, d);
  auto one = launch::term_kernels(five, d, launch::IosEngine::term_sum_inputs);
  ASSERT_EQ(one.size(), 1u);  // accumulate_sum_5
  EXPECT_TRUE(one[0].op.is<Add>());
  EXPECT_EQ(one[0].in.size(), 5u);
  // Term::forward's default branch: cudnnAddTensor per value, the first a copy (beta = 0),
  // each other reading the output and its value.
  auto each = launch::term_kernels(six, d, launch::IosEngine::term_sum_inputs);
  ASSERT_EQ(each.size(), 6u);
  EXPECT_TRUE(each[0].op.is<Identity>());
  for (std::size_t i = 1; i < 6; ++i) {
    EXPECT_TRUE(each[i].op.is<Add>());
    EXPECT_EQ(each[i].in.size(), 2u);
  }
}

TEST(IosEngine, SumsAChainOfFourValuesInOneCallWhereTheOtherEnginesIssueThreeAdds) {
  auto c = chain(4);
  auto s = c.one_stream();
  // IOS: the two inner Adds launch nothing; the last sums all four (5 us), issued by the first
  // call at 3.8 us; the ReLU, issued second, follows it at 8.8 us and ends at 9.8.
  EXPECT_DOUBLE_EQ(Ios{}.simulate(c.g, s).total_us, issue + 5 + 1);
  // One kernel per Add: three adds of 3 us issued at 3.8, 7.6 and 11.4 (the host's pace), the
  // ReLU issued fourth, at 15.2, ends at 16.2.
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(c.g, s).total_us, 4 * issue + 1);
  EXPECT_DOUBLE_EQ(MetaFlow{}.simulate(c.g, s).total_us, 4 * issue + 1);
  // Run over and over (IOS's profiler), the host's calls bound the pace: two a run (7.6 us,
  // above the kernels' 6) against four (15.2 us, above the kernels' 10).
  EXPECT_DOUBLE_EQ(Ios{}.prepare(c.g).measure_repeated(s) * 1000, 2 * issue);
  EXPECT_DOUBLE_EQ(Hosted{}.prepare(c.g).measure_repeated(s) * 1000, 4 * issue);
}

TEST(IosEngine, StagesRunWithoutTheInnerAddsOfATermAndAStageOfNothingElseIsNoStage) {
  GraphBuilder b;
  std::vector<Value> x;
  for (int i = 0; i < 4; ++i) x.push_back(b.input("x" + std::to_string(i), {1, 8, 4, 4}));
  auto s1 = b.add(x[0], x[1]);
  auto s2 = b.add(s1, x[2]);
  auto s3 = b.add(s2, x[3]);
  auto r = b.relu(s3);
  auto other = b.relu(x[0]);
  auto g = std::move(b).build({r, other});
  using Stages = std::vector<std::vector<std::vector<NodeId>>>;
  Stages stages{{{s1.node}, {other.node}}, {{s2.node}}, {{s3.node}}, {{r.node}}};
  // Without s1 and s2 every stage has one group: one stream, never synchronized. `other` is
  // issued at 3.8 us and ends at 4.8; the sum, issued at 7.6, ends at 12.6; the ReLU after it, 13.6.
  EXPECT_NEAR(Ios{}.measure_stages(g, std::span<std::vector<std::vector<NodeId>> const>(stages)) * 1000, 2 * issue + 5 + 1, 1e-9);
  // With a kernel per Add, the first stage has two groups: s1 (3.8 to 6.8) and `other` (7.6 to
  // 8.6), then the host synchronizes; the other three stages are one stream of s2, s3 and the
  // ReLU, issued at 3.8, 7.6 and 11.4, ending at 12.4.
  double sync = devices::V100::spec.host_sync_us;
  EXPECT_NEAR(Hosted{}.measure_stages(g, std::span<std::vector<std::vector<NodeId>> const>(stages)) * 1000,
              (2 * issue + 1 + sync) + (3 * issue + 1), 1e-9);
}

TEST(IosEngine, ATermOfSixValuesIsSixCallsACopyAndFiveAdds) {
  auto c = chain(6);
  // One copy (1 us) and five adds of 3 us, one block of 16 us from the first call at 3.8; the
  // ReLU is the seventh call, at 26.6 us, and ends at 27.6.
  EXPECT_DOUBLE_EQ(Ios{}.simulate(c.g, c.one_stream()).total_us, 7 * issue + 1);
  // The five binary Adds, one call each, then the ReLU: 6 calls, the last at 22.8 us.
  EXPECT_DOUBLE_EQ(Hosted{}.simulate(c.g, c.one_stream()).total_us, 6 * issue + 1);
}

TEST(IosEngine, ATermIsOnePassOverItsValuesAndItsOutput) {
  // A memory-bound sum of four 3.2 MB values reads four and writes one: 5/3 of a binary add's
  // bytes, and so of its work (the launch latency apart), on the roofline of a V100.
  RooflineCost roofline(devices::V100::spec);
  TensorDesc d{Shape{1, 64, 112, 112}, DType::float32};
  std::vector<TensorDesc> four(4, d), two(2, d), out{d};
  KernelCost sum = roofline.estimate(launch::term_kernels(four, d, 5)[0].op, four, out);
  KernelCost add = roofline.estimate(Add{}, two, out);
  EXPECT_NEAR((sum.us - sum.latency_us) / (add.us - add.latency_us), 5.0 / 3.0, 1e-9);
  // The chain of three binary adds it replaces moves 9 tensors: 9/5 of the term's bytes.
  EXPECT_LT(sum.us, 3 * add.us);
}

}  // namespace summed_terms_test
}  // namespace autograph
