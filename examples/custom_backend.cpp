// A backend in user code (Collage §3): one small type says what it runs — here a pattern,
// x * sigmoid(x) — and builds one CPU kernel for each group it matched. The op-level placement
// measures it against oneDNN on this machine and uses it where it is faster; the placed graph
// must give the reference executor's outputs either way.
#include <autograph/autograph.hpp>
#include <autograph/cpu/backends/onednn.hpp>
#include <autograph/cpu/backends/place.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace my {
using namespace autograph;

/// Swish, x * sigmoid(x), in one pass over x.
struct SwishBackend {
  static constexpr std::string_view name = "swish";
  template <class Set>
  void declare(placement::BackendSpec<Set>& spec) const {
    placement::PatternBuilder<Set> p;
    placement::Var x = p.var();
    auto s = p.op(placement::is<Sigmoid>, {x});
    p.output(p.op(placement::is<Mul>, {x, s}).commutative());
    spec.add("x*sigmoid(x)", std::move(p).build());
  }
  template <class Set>
  rules::Status can_run(Graph<Set> const&, NodeGroup const&) const {
    return rules::ok;  // any shape: the kernel is one flat loop
  }
  void build(Graph<BuiltinOps> const&, cpu::Preparation& p) const {
    std::int64_t n = p.outputs()[0].numel();
    p.run("swish, one pass", [n](cpu::Io const& io) -> cpu::Runner {
      return [x = io.in[0], y = io.out[0], n] {
        for (std::int64_t i = 0; i < n; ++i) y[i] = x[i] / (1.f + std::exp(-x[i]));
      };
    });
  }
};
}  // namespace my

int main() {
  using namespace autograph;
  GraphBuilder b;
  auto x = b.input("x", {1, 16, 32, 32});
  auto c = b.conv2d(x, 32, {3, 3}, {.bias = true});
  auto y = b.mul(c, b.sigmoid(c));
  auto g = std::move(b).build({b.conv2d(y, 8, {1, 1})});
  fill_random_weights(g, 1);

  cpu::CpuRuntime cpu({.warmup = 1, .budget_ms = 5});
  auto path = std::filesystem::temp_directory_path() / "autograph_custom_backend_costs.json";
  placement::CostDatabase db(path, cpu::cpu_device_name(cpu));
  auto placed = cpu::place(cpu::Backends<cpu::backends::OneDnn, my::SwishBackend>{}, g, cpu, db);
  for (auto const& pg : placed.placement.groups)
    std::printf("%-8s %-14s %zu op(s), %.1f us\n", placed.placement.backend_of(pg).c_str(), pg.pattern.c_str(), pg.group.size(), pg.cost);

  auto in = Tensor::random({1, 16, 32, 32}, 2);
  auto got = cpu.compile(placed.graph, schedule::sequential(KernelDag(placed.graph))).run(std::span<Tensor const>(&in, 1));
  auto want = ReferenceExecutor<>().run(g, {in});
  double err = 0;
  for (std::size_t i = 0; i < got[0].data().size(); ++i) err = std::max(err, double(std::fabs(got[0].data()[i] - want[0].data()[i])));
  std::printf("max |placed - reference| = %g\n", err);
  return err < 1e-3 ? 0 : 1;
}
