// A user-defined operator: define a type that models autograph::Operator, extend the
// built-in operator set with it, build a graph that uses it, and run it on the reference
// executor. Nothing in the library is edited.
#include <autograph/autograph.hpp>

#include <cmath>
#include <cstdio>

namespace my {

/// Swish(x) = x * sigmoid(beta * x)
struct Swish {
  static constexpr std::string_view name = "Swish";
  static constexpr autograph::Arity arity{1, 1};
  static constexpr bool elementwise = true;
  float beta = 1.f;

  auto params() const { return std::tuple{beta}; }
  bool operator==(Swish const&) const = default;
  std::vector<autograph::TensorDesc> infer(std::span<autograph::TensorDesc const> in) const {
    if (in.size() != 1) throw autograph::ShapeError("Swish takes 1 input, got " + std::to_string(in.size()));
    return {in[0]};
  }
  double flops(std::span<autograph::TensorDesc const>, std::span<autograph::TensorDesc const> out) const {
    return 4.0 * static_cast<double>(out[0].numel());
  }
  // The reference semantics: this member makes Swish ReferenceExecutable.
  std::vector<autograph::Tensor> evaluate(std::span<autograph::Tensor const> in, std::span<autograph::TensorDesc const> out) const {
    autograph::Tensor y(out[0].shape);
    auto x = in[0].data();
    auto o = y.mutable_data();
    for (std::size_t i = 0; i < x.size(); ++i) o[i] = x[i] / (1.f + std::exp(-beta * x[i]));
    return {y};
  }
};

using Ops = autograph::extend_t<autograph::BuiltinOps, Swish>;

}  // namespace my

static_assert(autograph::Operator<my::Swish> && autograph::ReferenceExecutable<my::Swish>);

int main() {
  using namespace autograph;
  GraphBuilder<my::Ops> b;
  auto x = b.input("x", {1, 3});
  auto y = b.add(my::Swish{2.f}, {b.scale(x, 2.f)});
  auto g = std::move(b).build({y});

  auto out = ReferenceExecutor<my::Ops>{}.run(g, {Tensor(Shape{1, 3}, {-1.f, 0.f, 1.f})});
  // x*2 = [-2, 0, 2]; swish_2(v) = v * sigmoid(2v)
  float expect[3];
  for (int i = 0; i < 3; ++i) {
    float v = 2.f * (static_cast<float>(i) - 1.f);
    expect[i] = v / (1.f + std::exp(-2.f * v));
  }
  bool ok = true;
  for (int i = 0; i < 3; ++i) ok = ok && std::fabs(out[0].data()[static_cast<std::size_t>(i)] - expect[i]) < 1e-6f;
  std::printf("Swish graph: %zu nodes, outputs [%g, %g, %g] -> %s\n", g.num_nodes(), out[0].data()[0], out[0].data()[1],
              out[0].data()[2], ok ? "as expected" : "WRONG");
  std::printf("%s", to_dot(g).c_str());
  return ok ? 0 : 1;
}
