#include <autograph/models/setr.hpp>

#include "model_testing.hpp"
#include "testing/graph_queries.hpp"

namespace autograph::models {
namespace {
using autograph::testing::trainable_under;

using namespace testing;

// ViT encoder parts by hand: patch conv 3*16*16*E + E, class token E, position table T*E, and
// per block 2 LayerNorms (4E), qkv E*3E + 3E, out E*E + E, MLP E*4E + 4E + 4E*E + E.
constexpr std::int64_t vit_encoder_parameters(std::int64_t e, std::int64_t layers, std::int64_t tokens) {
  return 769 * e + e + tokens * e + layers * (4 * e + 3 * e * e + 3 * e + e * e + e + 8 * e * e + 5 * e);
}
// Heads: LN 2E; naive conv1x1 E*256 + 256, BN 512, conv1x1 256*19 + 19; PUP conv3x3 E*256*9 + 256,
// three conv3x3 256*256*9 + 256, four BN, conv1x1 256*19 + 19.
constexpr std::int64_t naive_head(std::int64_t e) { return 2 * e + e * 256 + 256 + 512 + 256 * 19 + 19; }
constexpr std::int64_t pup_head(std::int64_t e) { return 2 * e + e * 256 * 9 + 256 + 3 * (256 * 256 * 9 + 256) + 4 * 512 + 256 * 19 + 19; }

TEST(Setr, ParametersAt384ArePartsByHand) {
  Graph<> base = setr_naive_base(), naive = setr_naive(), pup = setr_pup();
  EXPECT_NO_THROW(validate(pup));
  EXPECT_EQ(vit_encoder_parameters(768, 12, 197), 86'567'656 - 768 * 1000 - 1000 - 2 * 768);  // torchvision's vit_b_16 less head and final LN
  EXPECT_EQ(trainable_under(naive, "decode_head/"), naive_head(1024));
  EXPECT_EQ(trainable_under(pup, "decode_head/"), pup_head(1024));
  EXPECT_EQ(trainable_parameters(base), vit_encoder_parameters(768, 12, 577) + naive_head(768));
  EXPECT_EQ(trainable_parameters(base), 86'292'755);
  EXPECT_EQ(trainable_parameters(naive), 303'958'547);
  EXPECT_EQ(trainable_parameters(pup), 307'827'475);
}

TEST(Setr, PublishedCountsAreTheSetrPapersAt768) {
  // The paper's 87.69 / 305.67 / 310.57 M are not counts of the models at 384: the SETR configs
  // (fudan-zvg/SETR, *_768x768_*cityscapes*) build the encoder at img_size 768, whose position
  // table has 48 * 48 + 1 = 2305 rows instead of 577. At 768 Naive-Base and Naive come within
  // 0.1 % of the paper; what remains (+70,141 and -58,019, of opposite signs, so no one part
  // the two share) and PUP's +973,053 have no derivation from the published configs: their
  // training-only auxiliary heads (3 naive heads, 203,795 each for Base; 4 heads of 2,366,995
  // for PUP) overshoot every figure.
  std::int64_t base768 = trainable_parameters(setr_naive_base({.resolution = 768}));
  std::int64_t naive768 = trainable_parameters(setr_naive({.resolution = 768}));
  std::int64_t pup768 = trainable_parameters(setr_pup({.resolution = 768}));
  EXPECT_EQ(base768 - 86'292'755, (2305 - 577) * 768);
  EXPECT_EQ(87'690'000 - base768, 70'141);
  EXPECT_EQ(305'670'000 - naive768, -58'019);
  EXPECT_EQ(310'570'000 - pup768, 973'053);
  EXPECT_LT(relative_error(static_cast<double>(base768), 87.69e6), 1e-3);
  EXPECT_LT(relative_error(static_cast<double>(naive768), 305.67e6), 1e-3);
}

TEST(Setr, HeadsUpsampleToTheInput) {
  Graph<> naive = setr_naive_base({.batch = 2});
  EXPECT_EQ(input_shape(naive), (Shape{2, 3, 384, 384}));
  EXPECT_EQ(output_shape(naive), (Shape{2, 19, 384, 384}));
  EXPECT_EQ(shape_named(naive, "decode_head/to_map"), (Shape{2, 768, 24, 24}));  // Table I: 576 tokens
  EXPECT_EQ(count_ops<Resize>(naive), 1u);
  Graph<> pup = setr_pup();
  EXPECT_EQ(count_ops<Resize>(pup), 4u);
  EXPECT_EQ(shape_named(pup, "decode_head/upsample_2"), (Shape{1, 256, 192, 192}));
  EXPECT_EQ(output_shape(pup), (Shape{1, 19, 384, 384}));
  auto const* up = node_named(pup, "decode_head/upsample_3").get_if<Resize>();
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->mode, ResizeMode::linear);
  EXPECT_EQ(up->coordinate, ResizeCoordinate::pytorch_half_pixel);  // align_corners=False
  EXPECT_EQ(count_ops<LayerNorm>(pup), 24u * 2 + 1);
}

TEST(Setr, InvalidOptionsSayWhatIsWrong) {
  try {
    setr_naive({.resolution = 392});
    FAIL() << "no error";
  } catch (Error const& e) {
    EXPECT_STREQ(e.what(), "setr_naive: resolution 392 is not a multiple of the patch size 16");
  }
  EXPECT_THROW(setr_pup({.resolution = 8}), Error);
  EXPECT_THROW(setr({.num_classes = 0}), Error);
}

TEST(Setr, SmallConfigurationsRunOnTheReferenceExecutor) {
  // Two narrow blocks at 64 x 64 (4 x 4 patches), both heads, random weights.
  for (SetrHead head : {SetrHead::naive, SetrHead::pup}) {
    SetrConfig c{.encoder = {.layers = 2, .hidden = 64, .heads = 4, .mlp = 128}, .head = head, .channels = 16};
    expect_runs(setr(c, {.resolution = 64, .weight_seed = 2}), Shape{1, 19, 64, 64});
  }
}

}  // namespace
}  // namespace autograph::models
