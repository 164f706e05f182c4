// The backend placement as a policy of the CPU runtime (issue 17): AutoGraph's substitution
// search, the stream schedule and Collage's op-level placement in one Optimizer. Every graph
// the search measures is placed on oneDNN, OpenBLAS's im2col path and our own kernels by the
// DP over measured group costs (kept in a cost database file: a second run measures no group
// it knows), then run under the faster of a stream per core and one stream.
#include <autograph/autograph.hpp>
#include <autograph/cpu/backends/placed_baselines.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

int main() {
  using namespace autograph;
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 16, 16});
  auto l = b.relu(b.conv2d(x, 16, {1, 1}));
  auto r = b.relu(b.conv2d(x, 16, {3, 3}));
  auto g = std::move(b).build({b.sigmoid(b.add(l, r))});
  fill_random_weights(g, 1);

  using Runtime = cpu::PlacingCpuRuntime<cpu::Backends<cpu::backends::OneDnn, cpu::backends::Blas, cpu::backends::OwnKernels>>;
  auto db = std::filesystem::temp_directory_path() / "autograph_placing_runtime_costs.json";
  Runtime rt({.warmup = 1, .budget_ms = 5}, {.database = db, .group_budget_ms = 2});
  Optimizer<Graph<>, rules::Default, MixedCriticalPath<0.25>, Runtime> opt(rt, {.time_limit_s = 10});
  auto best = opt.optimize(g);
  std::printf("%s\n%.3f ms placed, from %.3f ms (the input placed); %zu groups measured into %s\n", rt.kind().c_str(), best.latency_ms,
              best.initial_latency_ms, rt.groups_measured(), db.c_str());
  auto backend = rt.node_backends(best.graph);  // by node id of best.graph
  for (NodeId n : best.graph.node_ids())
    if (!backend[n].empty()) std::printf("  %-24s %s\n", best.graph.label(n).c_str(), backend[n].c_str());

  auto const& placed = rt.placed(best.graph).graph;
  auto in = Tensor::random({1, 16, 16, 16}, 2);
  auto got = rt.compile(best.graph, schedule::sequential(KernelDag(placed))).run(std::span<Tensor const>(&in, 1));
  auto want = ReferenceExecutor<>().run(g, {in});
  double err = 0;
  for (std::size_t i = 0; i < got[0].data().size(); ++i) err = std::max(err, double(std::fabs(got[0].data()[i] - want[0].data()[i])));
  std::printf("max |placed - reference| = %g\n", err);
  return err < 1e-3 ? 0 : 1;
}
