// A user-defined operator joins the built-in set without editing the library.
#include <autograph/graph/builder.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <autograph/graph/validate.hpp>
#include <autograph/runtime/reference_executor.hpp>
#include <gtest/gtest.h>

namespace user {
using namespace autograph;

/// y = x^2 + c, a toy op with one parameter and its own reference semantics.
struct SquarePlus {
  static constexpr std::string_view name = "SquarePlus";
  static constexpr Arity arity{1, 1};
  float c = 0.f;
  auto params() const { return std::tuple{c}; }
  bool operator==(SquarePlus const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    if (in.size() != 1) throw ShapeError("SquarePlus takes 1 input, got " + std::to_string(in.size()));
    return {in[0]};
  }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const> out) const { return 2.0 * static_cast<double>(out[0].numel()); }
  std::vector<Tensor> evaluate(std::span<Tensor const> in, std::span<TensorDesc const> out) const {
    Tensor y(out[0].shape);
    for (std::size_t i = 0; i < y.mutable_data().size(); ++i) y.mutable_data()[i] = in[0].data()[i] * in[0].data()[i] + c;
    return {y};
  }
};
using Ops = extend_t<BuiltinOps, SquarePlus>;

/// An op with no reference semantics: a graph may hold it, the executor refuses at compile time.
struct Opaque {
  static constexpr std::string_view name = "Opaque";
  static constexpr Arity arity{1, 1};
  auto params() const { return std::tuple{}; }
  bool operator==(Opaque const&) const = default;
  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const { return {in[0]}; }
  double flops(std::span<TensorDesc const>, std::span<TensorDesc const>) const { return 0; }
};
}  // namespace user

using namespace autograph;

static_assert(Operator<user::SquarePlus> && ReferenceExecutable<user::SquarePlus>);
static_assert(Operator<user::Opaque> && !ReferenceExecutable<user::Opaque>);
static_assert(user::Ops::contains<user::SquarePlus> && user::Ops::contains<Conv2D> && !BuiltinOps::contains<user::SquarePlus>);

TEST(CustomOp, BuildsHashesAndRuns) {
  GraphBuilder<user::Ops> b;
  auto x = b.input("x", {1, 3});
  auto y = b.relu(b.add(user::SquarePlus{1.f}, {x}));
  auto g = std::move(b).build({y});
  validate(g);
  EXPECT_EQ(g[y.node].inputs.size(), 1u);
  EXPECT_TRUE(g[g[y.node].inputs[0].node].is<user::SquarePlus>());

  auto out = ReferenceExecutor<user::Ops>{}.run(g, {Tensor(Shape{1, 3}, {-2.f, 0.f, 3.f})});
  EXPECT_EQ(std::vector<float>(out[0].data().begin(), out[0].data().end()), (std::vector<float>{5.f, 1.f, 10.f}));

  // Its parameter takes part in the structural hash.
  GraphBuilder<user::Ops> b2;
  auto x2 = b2.input("x", {1, 3});
  auto g2 = std::move(b2).build({b2.relu(b2.add(user::SquarePlus{2.f}, {x2}))});
  EXPECT_NE(structural_hash(g), structural_hash(g2));
}

TEST(CustomOp, ErrorsNameTheUserOp) {
  GraphBuilder<user::Ops> b;
  auto x = b.input("x", {1, 3});
  try {
    b.add(user::SquarePlus{}, {x, x}, "sq");
    FAIL();
  } catch (ShapeError const& e) {
    EXPECT_NE(std::string(e.what()).find("SquarePlus 'sq'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("takes 1 input, got 2"), std::string::npos) << e.what();
  }
}
