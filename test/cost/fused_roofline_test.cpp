// The roofline prices each fused transformer op below the unfused kernels it replaces, for
// ViT-B/16's shapes on the H100: fewer launches, and the bytes of the intermediate tensors (the
// attention scores above all) never moved.
#include <autograph/cost/device.hpp>
#include <autograph/cost/roofline.hpp>
#include <gtest/gtest.h>

namespace autograph {
namespace {

TensorDesc d(Shape s) { return {s, DType::float32}; }

/// The roofline time of op on inputs `in`; `out` receives its outputs.
double us(AnyOp const& op, std::vector<TensorDesc> const& in, std::vector<TensorDesc>* out = nullptr) {
  auto o = op.infer(in);
  if (out) *out = o;
  return RooflineCost::compute(devices::H100::spec, op, in, o).us;
}

TEST(FusedRoofline, AttentionIsCheaperThanItsFiveKernelsAndNeverMovesTheScores) {
  // One ViT-B/16 block at batch 1: 12 heads of 64 over 197 tokens.
  TensorDesc q = d({1, 12, 197, 64}), kt = d({1, 12, 64, 197}), v = d({1, 12, 197, 64}), scores = d({1, 12, 197, 197});
  std::vector<TensorDesc> out;
  double fused = us(FusedAttention{0.125f}, {q, kt, v}, &out);
  double unfused = us(MatMul{}, {q, kt}) + us(Scale{0.125f}, {scores}) + us(Softmax{}, {scores}) + us(MatMul{}, {scores, v});
  EXPECT_LT(fused, unfused);
  std::vector<TensorDesc> in{q, kt, v};
  EXPECT_DOUBLE_EQ(AnyOp{FusedAttention{}}.bytes(in, out), 4.0 * (3 + 1) * 12 * 197 * 64);
  // Work the same: the fused kernel is not priced as free.
  EXPECT_GT(fused, us(MatMul{}, {q, kt}));
}

TEST(FusedRoofline, MatMulBiasGeluAndAddLayerNormAreCheaperThanTheirParts) {
  TensorDesc x = d({1, 197, 768}), w = d({768, 3072}), b = d({3072}), h = d({1, 197, 3072}), c = d({768});
  EXPECT_LT(us(MatMul{Activation::gelu}, {x, w, b}), us(MatMul{}, {x, w}) + us(Add{}, {h, b}) + us(Gelu{}, {h}));
  EXPECT_LT(us(AddLayerNorm{-1, 1e-6f, true}, {x, x, c, c}), us(Add{}, {x, x}) + us(LayerNorm{-1, 1e-6f}, {x, c, c}));
}

}  // namespace
}  // namespace autograph
