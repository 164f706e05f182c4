// Extending the rule engine without editing the library:
//  1. a user-defined rule (fuse x * sigmoid(x) into one Swish op), written as two expressions;
//  2. a user-defined op (a fully connected layer with weights stored [out, in]) that opts into
//     ChannelMergeable — and so is merged by the library's generic merge-sibling-ops rule, which
//     was written for Conv2D and MatMul and knows nothing of it.
// Both rules are verified numerically; the optimized graph is checked against the original.
#include <autograph/autograph.hpp>
#include <autograph/rules/apply_greedily.hpp>
#include <autograph/rules/engine.hpp>
#include <autograph/rules/expr.hpp>
#include <autograph/rules/verify.hpp>

#include <cmath>
#include <cstdio>
#include <random>

namespace my {
using namespace autograph;

/// Swish(x) = x * sigmoid(x), one kernel.
struct Swish {
  static constexpr std::string_view name = "Swish";
  static constexpr Arity arity{1, 1};
  static constexpr bool elementwise = true;
  auto params() const { return std::tuple{}; }
  bool operator==(Swish const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 4.0 * static_cast<double>(out[0].numel()); }
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Tensor y(out[0].shape);
    auto x = in[0].data();
    for (std::size_t i = 0; i < x.size(); ++i) y.mutable_data()[i] = x[i] / (1.f + std::exp(-x[i]));
    return {y};
  }
};

/// y[..., n] = sum_k x[..., k] * w[n, k] + b[n]: weights stored [out, in], as PyTorch's Linear.
struct Dense {
  static constexpr std::string_view name = "Dense";
  static constexpr Arity arity{3, 3};
  auto params() const { return std::tuple{}; }
  bool operator==(Dense const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    Shape y = in[0].shape;
    if (y.rank() < 1 || in[1].shape.rank() != 2 || in[1].shape[1] != y[y.rank() - 1] || in[2].shape != Shape{in[1].shape[0]})
      throw ShapeError("Dense: x[..., K], w[N, K], b[N] expected");
    y[y.rank() - 1] = in[1].shape[0];
    return {TensorDesc{y, in[0].dtype}};
  }
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    return 2.0 * static_cast<double>(out[0].numel() * in[1].shape[1]);
  }
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Tensor y(out[0].shape);
    std::int64_t n = in[1].shape()[0], k = in[1].shape()[1], rows = y.numel() / n;
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = 0; j < n; ++j) {
        float s = in[2].data()[static_cast<std::size_t>(j)];
        for (std::int64_t i = 0; i < k; ++i) s += in[0].data()[static_cast<std::size_t>(r * k + i)] * in[1].data()[static_cast<std::size_t>(j * k + i)];
        y.mutable_data()[static_cast<std::size_t>(r * n + j)] = s;
      }
    return {y};
  }
};

using Ops = extend_t<BuiltinOps, Swish, Dense>;

/// The user-defined rule: x * sigmoid(x) => swish(x), in either operand order.
struct FuseSwish : rules::Rewrite<FuseSwish, "fuse-swish"> {
  static constexpr auto from = rules::dsl::mul(rules::dsl::x, rules::dsl::op<Sigmoid>(rules::dsl::x)).commutative();
  static constexpr auto to = rules::dsl::op<Swish>(rules::dsl::x);
};

}  // namespace my

/// Random graphs containing a match, for numerical verification (beside the rule, not in it).
template <>
struct autograph::rules::RuleExample<my::FuseSwish> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    auto x = b.input("x", {2, static_cast<std::int64_t>(3 + rng() % 4)});
    return std::move(b).build({b.mul(b.sigmoid(x), x)});
  }
};

/// Dense opts into the generic channel merge: weights concatenate along axis 0 (rows = output
/// features), so does the bias, and the output splits along its last axis.
template <>
struct autograph::rules::ChannelMerge<my::Dense> {
  static bool mergeable(my::Dense const&, my::Dense const&) { return true; }
  static std::int64_t output_axis(Shape const& y) { return static_cast<std::int64_t>(y.rank()) - 1; }
  static std::int64_t channel_axis(std::size_t, Shape const&) { return 0; }
};

static_assert(autograph::rules::ChannelMergeable<my::Dense> && !autograph::rules::ChannelMergeable<my::Swish>);

int main() {
  using namespace autograph;
  // Two Dense layers reading one input (a gated unit), then swish on their sum.
  GraphBuilder<my::Ops> b;
  auto x = b.input("x", {4, 8});
  auto dense = [&](std::int64_t n, std::string const& name) {
    return b.add(my::Dense{}, {x, b.weight(name + ".w", Shape{n, 8}), b.weight(name + ".b", Shape{n}, WeightInit::uniform)}, name);
  };
  auto h = dense(6, "gate"), v = dense(6, "value");
  auto s = b.add(h, v);
  auto y = b.mul(s, b.sigmoid(s));
  auto g = std::move(b).build({y});
  fill_random_weights(g, 42);

  using MyRules = rules::Rules<my::FuseSwish, rules::MergeSiblingOps>;
  rules::RuleEngine<my::Ops, MyRules> engine;
  auto greedy = rules::apply_greedily(g, engine);  // every rule, until nothing matches
  Graph<my::Ops> const& opt = greedy.graph;
  std::vector<std::string> applied;
  for (std::size_t r = 0; r < engine.size(); ++r)
    if (greedy.applications[r] > 0) applied.push_back(std::string(engine.name(r)) + " x" + std::to_string(greedy.applications[r]));
  validate(opt);

  std::size_t dense_ops = 0, swish_ops = 0;
  for (NodeId id : opt.node_ids()) {
    dense_ops += opt[id].is<my::Dense>();
    swish_ops += opt[id].is<my::Swish>();
  }
  Tensor in = Tensor::random({4, 8}, 7);
  auto want = ReferenceExecutor<my::Ops>{}.run(g, {in});
  auto got = ReferenceExecutor<my::Ops>{}.run(opt, {in});
  double err = rules::detail::relative_error(want[0], got[0]);

  auto v1 = rules::verify_rule<my::Ops>(my::FuseSwish{});
  auto v2 = rules::verify_rule<BuiltinOps>(rules::MergeSiblingOps{});  // the generic rule itself, on Conv2D/MatMul
  std::printf("applied:");
  for (auto const& a : applied) std::printf(" %s", a.c_str());
  std::printf("\n%zu -> %zu nodes, %zu Dense, %zu Swish, max relative error %.2e\n%s\n%s\n", g.num_nodes(), opt.num_nodes(), dense_ops, swish_ops,
              err, rules::to_string(v1).c_str(), rules::to_string(v2).c_str());
  bool ok = dense_ops == 1 && swish_ops == 1 && err <= 1e-5 && v1.verdict == rules::Verdict::verified && v2.verdict == rules::Verdict::verified;
  std::printf("%s\n", ok ? "custom rule and custom op: as expected" : "WRONG");
  return ok ? 0 : 1;
}
