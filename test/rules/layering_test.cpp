// Layers point one way: matching and rewriting build without the runtime. The Rewriter folds
// weight transforms with a folder it is given (rules/fold_weights.hpp holds the reference one),
// so this file, which includes every rules header but fold_weights.hpp and verify.hpp, sees no
// CPU kernel and no BLAS.
#include <gtest/gtest.h>

#include <autograph/rules/apply_independent.hpp>
#include <autograph/rules/engine.hpp>
#include <autograph/rules/match_index.hpp>
#include <autograph/rules/rewriter.hpp>

#ifdef CBLAS_H
#error "a rules header includes cblas.h: the CPU kernels leaked into matching and rewriting"
#endif

namespace autograph {
namespace reference {
template <class Op>
struct Kernel;  // declared by runtime/reference_kernel.hpp, specialised by runtime/cpu/
}  // namespace reference

namespace {

template <class T>
concept Complete = requires { sizeof(T); };

// No reference kernel is visible: no rules header above includes runtime/cpu/.
static_assert(!Complete<reference::Kernel<Concat>>);
static_assert(!Complete<reference::Kernel<Conv2D>>);
static_assert(!Complete<reference::Kernel<MatMul>>);
// Options that hold a folder are still literal types (searches keep theirs constexpr).
static_assert(std::is_trivially_copyable_v<rules::RewriteOptions>);
constexpr rules::RewriteOptions no_folding{};
static_assert(no_folding.fold == nullptr);

TEST(Layering, RewritingWithoutAFolderKeepsWeightTransformsAsNodes) {
  Graph<> g;
  auto w1 = g.add(Weight{{{2, 3}, DType::float32}, std::make_shared<std::vector<float> const>(6, 1.f), 1, WeightInit::uniform}, {});
  auto w2 = g.add(Weight{{{2, 3}, DType::float32}, std::make_shared<std::vector<float> const>(6, 2.f), 2, WeightInit::uniform}, {});
  rules::Rewriter<BuiltinOps> rw(g);
  Value ins[] = {{w1, 0}, {w2, 0}};
  Value sum = rw.add(Add{}, ins);
  EXPECT_TRUE(g[sum.node].is<Add>());  // weights with data, and still a node: nothing folds
  EXPECT_EQ(rw.changes().folded, 0u);
  EXPECT_EQ(rw.changes().added.size(), 1u);
}

}  // namespace
}  // namespace autograph
