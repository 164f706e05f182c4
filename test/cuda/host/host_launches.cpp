// The host launch tests' shared driver (host_launches.hpp).
#include "host_launches.hpp"

#include <cmath>
#include <random>

#include "autograph/cuda/epilogue.hpp"
#include "autograph/cuda/lower.hpp"
#include "autograph/cuda/memory_plan.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "autograph/schedule/nimble.hpp"
#include "autograph/schedule/sequential.hpp"
#include "autograph/schedule/waits.hpp"

namespace autograph::cuda::testing {
namespace {

using Kind = LoweredGraph::ValueInfo::Kind;

/// A random order of the launches of `s` that respects stream order and waits.
std::vector<Launch const*> random_interleaving(Schedule const& s, std::mt19937_64& rng) {
  std::set<NodeId> done;
  std::vector<std::size_t> next(s.streams.size(), 0);
  std::vector<Launch const*> order;
  while (order.size() < s.num_kernels()) {
    std::vector<std::size_t> ready;
    for (std::size_t t = 0; t < s.streams.size(); ++t)
      if (next[t] < s.streams[t].size() && std::ranges::all_of(s.streams[t][next[t]].waits, [&](NodeId w) { return done.contains(w); }))
        ready.push_back(t);
    if (ready.empty()) throw Error("the schedule deadlocks");
    std::size_t t = ready[std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng)];
    Launch const& l = s.streams[t][next[t]++];
    done.insert(l.node);
    order.push_back(&l);
  }
  return order;
}

/// Calls every launch of `lg` in `order` with pointers into a host arena laid out by the
/// memory plan (stale bytes are NaN, so reading a buffer another node has taken over shows).
/// A matrix product's cuBLASLt call (which has no CPU version) is the reference MatMul with
/// the epilogue cuBLASLt fuses (gemm_epilogue); the node's other launches run as they are.
template <class Set>
std::vector<Tensor> run_launches(Graph<Set> const& g, LoweredGraph const& lg, Schedule const& s, std::vector<Launch const*> const& order,
                                 std::vector<Tensor> const& inputs) {
  HappensBefore hb(lg.id_bound);
  hb.build(s);
  validate_schedule(lg, hb, true);
  MemoryPlan m = plan_memory(lg, hb, true);
  std::vector<float> arena(m.arena.size / sizeof(float) + 1, std::nanf(""));
  std::vector<Tensor> in;  // copies: the launches get non-const pointers
  for (Tensor const& t : inputs) in.push_back(Tensor(t.shape(), std::vector<float>(t.data().begin(), t.data().end())));
  auto ptr = [&](std::uint32_t v) -> float* {
    if (lg.values[v].kind == Kind::empty) return nullptr;
    auto [root, offset] = lg.root(v);
    auto const& rv = lg.values[root];
    switch (rv.kind) {
      case Kind::input: return in[rv.slot].mutable_ptr() + offset;
      case Kind::constant: return const_cast<float*>(lg.host_constants[rv.slot].ptr()) + offset;
      case Kind::buffer: return arena.data() + m.offset(lg, v) / sizeof(float);
      default: return nullptr;
    }
  };
  for (Launch const* l : order) {
    std::size_t index = lg.node_index[l->node];
    auto const& n = lg.nodes[index];
    std::vector<float const*> ins;
    std::vector<float*> outs;
    std::vector<void*> workspaces;
    std::vector<void const*> uploads;
    for (std::uint32_t v : n.inputs) ins.push_back(ptr(v));
    for (std::uint32_t v : n.outputs) outs.push_back(ptr(v));
    for (std::uint32_t r : m.workspace_request[index]) workspaces.push_back(arena.data() + m.arena.offsets[r] / sizeof(float));
    for (auto const& u : n.host_uploads) uploads.push_back(u.data());
    LaunchArgs args{nullptr, nullptr, ins, outs, workspaces, uploads, n.placed};
    for (auto const& launch : n.launches) {
      if (launch.what != gemm_launch) {
        launch.fn(args);
        continue;
      }
      auto const* found = g[l->node].op.template get_if<MatMul>();
      if (!found) throw Error("host launches: " + g.label(l->node) + " calls cuBLASLt, which has a CPU version here only for a MatMul node");
      MatMul const& mm = *found;
      GemmEpilogue ep = gemm_epilogue(n.inputs.size() == 3, mm.act);
      bool relu = ep.fused == GemmEpilogue::Fused::relu || ep.fused == GemmEpilogue::Fused::relu_bias;
      std::vector<Tensor> operands;
      for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        Tensor t(lg.values[n.inputs[i]].desc.shape);
        if (t.numel() > 0) std::copy_n(ins[i], t.numel(), t.mutable_ptr());
        operands.push_back(std::move(t));
      }
      std::vector<TensorDesc> out_desc{lg.values[n.outputs[0]].desc};
      Tensor product = reference::evaluate(MatMul{relu ? Activation::relu : Activation::none}, operands, out_desc)[0];
      std::copy_n(product.ptr(), product.numel(), outs[0]);
    }
  }
  std::vector<Tensor> result;
  for (std::uint32_t v : lg.outputs) {
    Tensor t(lg.values[v].desc.shape);
    if (t.numel() > 0) std::copy_n(ptr(v), t.numel(), t.mutable_ptr());
    result.push_back(std::move(t));
  }
  return result;
}

::testing::AssertionResult close(Tensor const& got, Tensor const& want, double tolerance) {
  if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shape " << got.shape().to_string() << " vs " << want.shape().to_string();
  double num = 0, den = 0;
  for (std::size_t i = 0; i < got.data().size(); ++i) {
    double g = got.data()[i], w = want.data()[i];
    if (std::isnan(g) != std::isnan(w)) return ::testing::AssertionFailure() << "value " << i << " is " << g << ", expected " << w;
    if (std::isnan(w) || std::isinf(w)) continue;
    num += (g - w) * (g - w);
    den += w * w;
  }
  double rel = den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  if (!(rel <= tolerance)) return ::testing::AssertionFailure() << "relative L2 error " << rel << " > " << tolerance;
  return ::testing::AssertionSuccess();
}

template <class Set>
void check_launches_of(Graph<Set> const& g, std::string const& what, float lo, float hi, double tolerance) {
  std::vector<Tensor> inputs;
  std::uint64_t seed = 3;
  for (NodeId id : g.inputs()) inputs.push_back(Tensor::random(g[id].outputs[0].shape, seed++, lo, hi));
  auto want = ReferenceExecutor<Set>().run(g, std::span<Tensor const>(inputs));
  KernelDag dag(g);
  std::mt19937_64 rng(7);
  std::vector<std::vector<NodeId>> streams(3);
  for (NodeId id : dag.nodes()) streams[std::uniform_int_distribution<std::size_t>(0, 2)(rng)].push_back(id);
  std::vector<std::pair<std::string, Schedule>> schedules{
      {"sequential", schedule::sequential(dag)}, {"nimble", schedule::nimble(dag)}, {"random streams", insert_waits(dag, streams)}};
  for (LowerOptions options : {LowerOptions{}, LowerOptions{.views = false, .in_place_concat = false}}) {
    auto lg = lower(g, nullptr, options);
    for (auto const& [name, s] : schedules)
      for (int i = 0; i < 4; ++i) {
        auto got = run_launches(g, *lg, s, random_interleaving(s, rng), inputs);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t o = 0; o < got.size(); ++o)
          EXPECT_TRUE(close(got[o], want[o], tolerance))
              << what << ", " << (options.views ? "views" : "copies") << ", " << name << ", interleaving " << i << ", output " << o;
      }
  }
}

}  // namespace

void check_launches(Graph<> const& g, std::string const& what, float lo, float hi, double tolerance) {
  check_launches_of(g, what, lo, hi, tolerance);
}
void check_launches(Graph<PlacedOps> const& g, std::string const& what, float lo, float hi, double tolerance) {
  check_launches_of(g, what, lo, hi, tolerance);
}

}  // namespace autograph::cuda::testing
