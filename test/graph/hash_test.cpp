// The structural hash ignores numbering and names, and sees every parameter.
#include <autograph/graph/builder.hpp>
#include <autograph/graph/structural_hash.hpp>
#include <gtest/gtest.h>

using namespace autograph;

namespace {
// Two branches off one input, concatenated; built with branches in either order.
Graph<> two_branches(bool swap_build_order, std::int64_t stride = 1, std::string const& prefix = "") {
  GraphBuilder b;
  auto x = b.input("x", {1, 8, 16, 16});
  auto w1 = b.weight("w1", {8, 8, 1, 1});
  auto w3 = b.weight("w3", {8, 8, 3, 3});
  Value one, three;
  auto make_one = [&] { one = b.add(Conv2D{}, {x, w1}, prefix + "one"); };
  auto make_three = [&] { three = b.add(Conv2D{.stride = {stride, stride}, .pad = {1, 1, 1, 1}}, {x, w3}, prefix + "three"); };
  if (swap_build_order) {
    make_three();
    make_one();
  } else {
    make_one();
    make_three();
  }
  if (stride != 1) three = b.add(Pool2D{.kind = PoolKind::avg, .global = true}, {three});
  if (stride != 1) one = b.add(Pool2D{.kind = PoolKind::avg, .global = true}, {one});
  return std::move(b).build({b.relu(b.concat({one, three}))});
}
}  // namespace

TEST(StructuralHash, IndependentOfBuildOrderAndNames) {
  auto a = two_branches(false), b = two_branches(true), c = two_branches(false, 1, "renamed_");
  EXPECT_EQ(structural_hash(a), structural_hash(b));
  EXPECT_EQ(structural_hash(a), structural_hash(c));
  EXPECT_TRUE(structurally_equal(a, b));
  EXPECT_TRUE(structurally_equal(a, c));
}

TEST(StructuralHash, SeesParameters) {
  auto a = two_branches(false, 1), b = two_branches(false, 2);
  EXPECT_NE(structural_hash(a), structural_hash(b));
  EXPECT_FALSE(structurally_equal(a, b));
}

TEST(StructuralHash, SeesInputOrderOfNonCommutativeOps) {
  auto make = [](bool flip) {
    GraphBuilder b;
    auto x = b.input("x", {4}), y = b.input("y", {4});
    return std::move(b).build({flip ? b.sub(y, x) : b.sub(x, y)});
  };
  EXPECT_NE(structural_hash(make(false)), structural_hash(make(true)));
  EXPECT_FALSE(structurally_equal(make(false), make(true)));
}

TEST(StructuralHash, CommutedInputsAreTheSameGraph) {
  auto make = [](bool flip) {
    GraphBuilder b;
    auto x = b.input("x", {4}), y = b.input("y", {4});
    auto s = flip ? b.add(y, x) : b.add(x, y);
    return std::move(b).build({b.mul(flip ? b.relu(s) : s, flip ? s : b.relu(s))});
  };
  EXPECT_EQ(structural_hash(make(false)), structural_hash(make(true)));
  EXPECT_TRUE(structurally_equal(make(false), make(true)));
}

TEST(StructuralHash, IdenticalTwinsWithDifferentReaders) {
  // Two identical relu(x) nodes feed different convs: equality must pair each twin with the
  // one whose reader matches, not the first that hashes alike.
  auto make = [](bool swap_build) {
    GraphBuilder b;
    Value x = b.input("x", {1, 2, 4, 4});
    Value r1 = b.relu(x), r2 = b.relu(x);
    if (swap_build) std::swap(r1, r2);
    auto w1 = b.weight("w1", {2, 2, 1, 1}), w2 = b.weight("w2", {2, 2, 3, 3});
    Value y = b.add(b.add(Conv2D{}, {r1, w1}), b.add(Conv2D{.pad = {1, 1, 1, 1}}, {r2, w2}));
    return std::move(b).build({y});
  };
  EXPECT_TRUE(structurally_equal(make(false), make(false)));
  EXPECT_TRUE(structurally_equal(make(false), make(true)));
}

TEST(StructuralHash, SeesOutputsAndDeadNodes) {
  GraphBuilder b;
  auto x = b.input("x", {4});
  auto r = b.relu(x), t = b.tanh(x);
  Graph<> base = b.graph();
  Graph<> g1 = base, g2 = base;
  g1.set_outputs({r, t});
  g2.set_outputs({t, r});
  EXPECT_NE(structural_hash(g1), structural_hash(g2));
  Graph<> g3 = base;
  g3.set_outputs({r});
  Graph<> g4 = g3;
  g4.remove_dead();  // drops the unused tanh
  EXPECT_NE(structural_hash(g3), structural_hash(g4));
  EXPECT_FALSE(structurally_equal(g3, g4));
}

TEST(StructuralHash, DistinctWeightsAreDistinct) {
  auto make = [](char const* w) {
    GraphBuilder b;
    auto x = b.input("x", {1, 4});
    return std::move(b).build({b.matmul(x, b.weight(w, {4, 4}))});
  };
  EXPECT_EQ(structural_hash(make("w")), structural_hash(make("w")));
  EXPECT_NE(structural_hash(make("w")), structural_hash(make("v")));
}
