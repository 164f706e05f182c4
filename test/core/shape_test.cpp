#include <autograph/core/tensor.hpp>
#include <autograph/core/tensor_desc.hpp>
#include <gtest/gtest.h>

using namespace autograph;

TEST(Shape, BasicsAndNumel) {
  Shape s{2, 3, 4};
  EXPECT_EQ(s.rank(), 3u);
  EXPECT_EQ(s.numel(), 24);
  EXPECT_EQ(s.at(-1), 4);
  EXPECT_EQ(s.to_string(), "[2,3,4]");
  EXPECT_EQ(Shape{}.numel(), 1);  // a scalar
  EXPECT_EQ((Shape{2, 3}), (Shape{2, 3}));
  EXPECT_NE((Shape{2, 3}), (Shape{3, 2}));
  EXPECT_NE((Shape{2, 3}).hash(), (Shape{3, 2}).hash());
}

TEST(Shape, RejectsBadDims) {
  EXPECT_THROW((Shape{1, -2}), ShapeError);
  EXPECT_THROW((Shape{1, 1, 1, 1, 1, 1, 1, 1, 1}), ShapeError);
  EXPECT_THROW((Shape{2, 3}).at(2), ShapeError);
  EXPECT_THROW((Shape{2, 3}).normalize_axis(-3), ShapeError);
}

TEST(Shape, Strides) {
  auto st = strides_of(Shape{2, 3, 4});
  EXPECT_EQ(st[0], 12);
  EXPECT_EQ(st[1], 4);
  EXPECT_EQ(st[2], 1);
}

TEST(Broadcast, NumpyRules) {
  EXPECT_EQ(broadcast(Shape{3, 1}, Shape{1, 4}), (Shape{3, 4}));
  EXPECT_EQ(broadcast(Shape{2, 1, 3}, Shape{5, 3}), (Shape{2, 5, 3}));
  EXPECT_EQ(broadcast(Shape{}, Shape{4}), (Shape{4}));
  try {
    broadcast(Shape{2, 3}, Shape{4});
    FAIL();
  } catch (ShapeError const& e) {
    EXPECT_NE(std::string(e.what()).find("[2,3] and [4]"), std::string::npos) << e.what();
  }
}

TEST(Tensor, SharedStorageAndViews) {
  Tensor t(Shape{2, 2}, {1, 2, 3, 4});
  Tensor v = t.reshaped(Shape{4});
  EXPECT_EQ(v.data().data(), t.data().data());  // no copy
  EXPECT_THROW(t.reshaped(Shape{3}), ShapeError);
  EXPECT_THROW(Tensor(Shape{2, 2}, std::vector<float>{1, 2, 3}), ShapeError);
  auto a = Tensor::random(Shape{8}, 7), b = Tensor::random(Shape{8}, 7), c = Tensor::random(Shape{8}, 8);
  EXPECT_TRUE(std::equal(a.data().begin(), a.data().end(), b.data().begin()));
  EXPECT_FALSE(std::equal(a.data().begin(), a.data().end(), c.data().begin()));
}

TEST(TensorDesc, BytesAndDtype) {
  TensorDesc f32{Shape{2, 3}, DType::float32}, f16{Shape{2, 3}, DType::float16};
  EXPECT_EQ(f32.bytes(), 24);
  EXPECT_EQ(f16.bytes(), 12);
  EXPECT_NE(f32, f16);
  EXPECT_NE(f32.hash(), f16.hash());
  EXPECT_EQ(f16.to_string(), "f16[2,3]");
}
