// Every built-in operator on the GPU against the reference executor, in FP32 (no TF32), with
// views and in-place concatenation on and off. Skips without a GPU.
#include <gtest/gtest.h>

#include "cuda_testing.hpp"

namespace autograph::cuda {
namespace {

constexpr LowerOptions fp32_copies{.allow_tf32 = false, .views = false, .in_place_concat = false};

/// Compares with the reference twice: with views and in-place concatenation, and with
/// every copy made by a kernel.
void check(Graph<> const& g, double tolerance, std::string const& what, float lo = -1.f, float hi = 1.f) {
  auto in = random_inputs(g, 1, lo, hi);
  expect_matches_reference(g, in, tolerance, fp32, what);
  expect_matches_reference(g, in, tolerance, fp32_copies, what + " (copies)");
}

constexpr double exact = 1e-6;  // elementwise and data movement: the same float operations
constexpr double tf32_gemm = 5e-3; // TF32 tensor cores: 10-bit mantissas

TEST(CudaOps, Conv2D) {
  AUTOGRAPH_REQUIRE_GPU();
  struct Case {
    std::string what;
    Shape x, w;
    Conv2D op;
    bool bias;
  };
  std::vector<Case> cases = {
      {"3x3 same, bias, relu", {1, 8, 12, 12}, {16, 8, 3, 3}, Conv2D{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, Activation::relu}, true},
      {"3x3 stride 2, asymmetric SAME pad", {1, 8, 11, 11}, {8, 8, 3, 3}, Conv2D{{2, 2}, {0, 0, 1, 1}, {1, 1}, 1, Activation::none}, false},
      {"grouped, batch 2", {2, 8, 9, 9}, {8, 2, 3, 3}, Conv2D{{1, 1}, {1, 1, 1, 1}, {1, 1}, 4, Activation::none}, true},
      {"depthwise 5x5", {1, 6, 10, 10}, {6, 1, 5, 5}, Conv2D{{1, 1}, {2, 2, 2, 2}, {1, 1}, 6, Activation::none}, false},
      {"dilated", {1, 4, 13, 13}, {4, 4, 3, 3}, Conv2D{{1, 1}, {2, 2, 2, 2}, {2, 2}, 1, Activation::tanh}, true},
      {"1x1 sigmoid", {1, 16, 7, 7}, {24, 16, 1, 1}, Conv2D{{1, 1}, {0, 0, 0, 0}, {1, 1}, 1, Activation::sigmoid}, true},
      {"7x1 factorised", {1, 8, 17, 17}, {8, 8, 7, 1}, Conv2D{{1, 1}, {3, 0, 3, 0}, {1, 1}, 1, Activation::relu}, false},
      {"stride 2 valid", {1, 3, 29, 29}, {8, 3, 3, 3}, Conv2D{{2, 2}, {0, 0, 0, 0}, {1, 1}, 1, Activation::none}, false},
  };
  for (auto const& c : cases) {
    Net n;
    Value x = n.input(c.x), w = n.weight(c.w);
    Value y = c.bias ? n.op(c.op, {x, w, n.weight({c.w[0]})}) : n.op(c.op, {x, w});
    Graph<> g = n.done({y});
    check(g, fp32_gemm, "Conv2D " + c.what);
    auto in = random_inputs(g);
    expect_matches_reference(g, in, tf32_gemm, {.allow_tf32 = true}, "Conv2D " + c.what + " (TF32)");
  }
}

// Issue 16, defect 1: the bias and activation run inside the library call where cuDNN or
// cuBLASLt can fuse them (epilogue.hpp; the choice itself is host-tested, Epilogue.*), and a
// bias_activation kernel follows only for sigmoid and tanh. The lowered graph lists the launches.
TEST(CudaOps, EpiloguesAreFusedIntoTheLibraryCall) {
  AUTOGRAPH_REQUIRE_GPU();
  using Names = std::vector<std::string>;
  auto launches = [](Graph<> const& g) {
    Names names;
    auto lg = lower(g, &testing::gpu().device(), fp32);
    for (auto const& node : lg->nodes)
      for (auto const& l : node.launches) names.push_back(l.what);
    return names;
  };
  auto conv = [&](Activation act, bool bias) {
    Net n;
    Value x = n.input({1, 8, 12, 12}), w = n.weight({16, 8, 3, 3});
    Conv2D op{{1, 1}, {1, 1, 1, 1}, {1, 1}, 1, act};
    return launches(n.done({bias ? n.op(op, {x, w, n.weight({16})}) : n.op(op, {x, w})}));
  };
  auto matmul = [&](Activation act) {
    Net n;
    return launches(n.done({n.op(MatMul{act}, {n.input({5, 8}), n.weight({8, 4})})}));
  };
  EXPECT_EQ(conv(Activation::relu, true), Names{"cudnnConvolutionBiasActivationForward"});
  EXPECT_EQ(conv(Activation::relu, false), Names{"cudnnConvolutionBiasActivationForward"});
  EXPECT_EQ(conv(Activation::none, false), Names{"cudnnConvolutionForward"});
  EXPECT_EQ(conv(Activation::sigmoid, true), (Names{"cudnnConvolutionForward", "bias_activation kernel"}));
  Names bias_alone = conv(Activation::none, true);  // fused only where IMPLICIT_PRECOMP_GEMM is about as fast
  EXPECT_TRUE(bias_alone == Names{"cudnnConvolutionBiasActivationForward"} ||
              bias_alone == (Names{"cudnnConvolutionForward", "bias_activation kernel"}));
  EXPECT_EQ(matmul(Activation::relu), Names{"cublasLtMatmul"});
  EXPECT_EQ(matmul(Activation::none), Names{"cublasLtMatmul"});
  EXPECT_EQ(matmul(Activation::tanh), (Names{"cublasLtMatmul", "bias_activation kernel"}));
}

TEST(CudaOps, ConvolutionOfAMisalignedView) {
  AUTOGRAPH_REQUIRE_GPU();
  // The second piece of a channel Split starts 25 floats (100 bytes) into its input: cuDNN
  // gets an aligned copy.
  Net n;
  auto parts = n.ops(Split{1, {1, 2}}, {n.op(Relu{}, {n.input({1, 3, 5, 5})})});
  Value y = n.op(Conv2D{{1, 1}, {1, 1, 1, 1}}, {parts[1], n.weight({4, 2, 3, 3})});
  Value t = n.op(ConvTranspose2D{{2, 2}}, {parts[1], n.weight({2, 3, 2, 2})});
  check(n.done({y, t}), fp32_gemm, "convolutions of a misaligned view");
}

TEST(CudaOps, ConvTranspose2D) {
  AUTOGRAPH_REQUIRE_GPU();
  struct Case {
    std::string what;
    Shape x, w;
    ConvTranspose2D op;
    bool bias;
  };
  std::vector<Case> cases = {
      {"stride 2 pad 1 (direct)", {1, 8, 6, 6}, {8, 4, 3, 3}, ConvTranspose2D{{2, 2}, {1, 1, 1, 1}, {1, 1}, {0, 0}, 1}, true},
      {"output padding (cropped)", {1, 8, 6, 6}, {8, 4, 3, 3}, ConvTranspose2D{{2, 2}, {1, 1, 1, 1}, {1, 1}, {1, 1}, 1}, true},
      {"asymmetric pad", {2, 4, 5, 7}, {4, 3, 4, 4}, ConvTranspose2D{{2, 2}, {1, 0, 2, 1}, {1, 1}, {0, 0}, 1}, false},
      {"grouped, dilated", {1, 6, 5, 5}, {6, 2, 3, 3}, ConvTranspose2D{{1, 1}, {0, 0, 0, 0}, {2, 2}, {0, 0}, 3}, true},
  };
  for (auto const& c : cases) {
    Net n;
    Value x = n.input(c.x), w = n.weight(c.w);
    Value y = c.bias ? n.op(c.op, {x, w, n.weight({c.w[1] * c.op.groups})}) : n.op(c.op, {x, w});
    check(n.done({y}), fp32_gemm, "ConvTranspose2D " + c.what);
  }
}

TEST(CudaOps, MatMul) {
  AUTOGRAPH_REQUIRE_GPU();
  struct Case {
    std::string what;
    Shape a, b;
    Activation act;
    bool b_is_input;
  };
  std::vector<Case> cases = {
      {"plain", {5, 7}, {7, 3}, Activation::none, false},
      {"linear over a sequence (batch folded into rows)", {2, 3, 5, 8}, {8, 4}, Activation::relu, false},
      {"strided batch", {2, 3, 5, 7}, {2, 3, 7, 4}, Activation::none, true},
      {"broadcast batch (one stride per operand impossible)", {2, 1, 5, 7}, {1, 3, 7, 4}, Activation::sigmoid, true},
      {"a broadcast over b's batch", {5, 7}, {4, 7, 6}, Activation::tanh, true},
      {"attention scores", {2, 4, 9, 16}, {2, 4, 16, 9}, Activation::none, true},
      {"odd sizes (unaligned rows)", {3, 13}, {13, 5}, Activation::none, true},
  };
  for (auto const& c : cases) {
    Net n;
    Value a = n.input(c.a);
    Value b = c.b_is_input ? n.input(c.b) : n.weight(c.b);
    Graph<> g = n.done({n.op(MatMul{c.act}, {a, b})});
    check(g, fp32_gemm, "MatMul " + c.what);
    auto in = random_inputs(g);
    expect_matches_reference(g, in, tf32_gemm, {.allow_tf32 = true}, "MatMul " + c.what + " (TF32)");
  }
  // An empty inner dimension: act(0) everywhere.
  Net n;
  Graph<> g = n.done({n.op(MatMul{Activation::sigmoid}, {n.input({3, 0}), n.input({0, 4})})});
  check(g, exact, "MatMul with K = 0");
}

TEST(CudaOps, Pool2D) {
  AUTOGRAPH_REQUIRE_GPU();
  std::vector<std::pair<std::string, Pool2D>> cases = {
      {"max 3x3 s2 p1", Pool2D{PoolKind::max, {3, 3}, {2, 2}, {1, 1, 1, 1}}},
      {"avg 3x3 s1 p1 exclude pad", Pool2D{PoolKind::avg, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, false}},
      {"avg 3x3 s1 p1 include pad", Pool2D{PoolKind::avg, {3, 3}, {1, 1}, {1, 1, 1, 1}, false, true}},
      {"max ceil mode", Pool2D{PoolKind::max, {3, 3}, {2, 2}, {0, 0, 0, 0}, false, false, true}},
      {"avg ceil mode include pad", Pool2D{PoolKind::avg, {3, 3}, {2, 2}, {1, 1, 1, 1}, false, true, true}},
      {"asymmetric pad", Pool2D{PoolKind::avg, {2, 2}, {2, 2}, {0, 0, 1, 1}}},
      {"global avg", Pool2D{PoolKind::avg, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}},
      {"global max", Pool2D{PoolKind::max, {1, 1}, {1, 1}, {0, 0, 0, 0}, true}},
  };
  for (auto const& [what, op] : cases) {
    Net n;
    check(n.done({n.op(op, {n.input({2, 3, 10, 11})})}), fp32_math, "Pool2D " + what);
  }
}

TEST(CudaOps, Binary) {
  AUTOGRAPH_REQUIRE_GPU();
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{4, 6, 8}, {4, 6, 8}},          // same shape (vectorised)
      {{3, 5, 7}, {3, 5, 7}},          // same shape, odd count
      {{2, 3, 4, 5}, {3, 1, 1}},       // per-channel
      {{1, 5}, {4, 1}},                // both broadcast
      {{2, 3, 4}, {}},                 // a scalar
      {{6, 1, 4}, {6, 5, 4}},          // a broadcast in the middle
  };
  auto run = [&]<class O>(O op) {
    for (auto const& [sa, sb] : shapes) {
      Net n;
      check(n.done({n.op(op, {n.input(sa), n.input(sb)})}), exact, std::string(O::name) + " " + sa.to_string() + " " + sb.to_string(), 0.5f,
            2.f);
    }
  };
  run(Add{});
  run(Sub{});
  run(Mul{});
  run(Div{});
  run(Max{});
  run(Min{});
  for (auto const& [sa, sb] : shapes) {
    Net n;
    check(n.done({n.op(Pow{}, {n.input(sa), n.input(sb)})}), fp32_math, "Pow " + sa.to_string() + " " + sb.to_string(), 0.5f, 2.f);
  }
}

TEST(CudaOps, Unary) {
  AUTOGRAPH_REQUIRE_GPU();
  auto run = [&]<class O>(O op, float lo, float hi) {
    for (Shape s : {Shape{3, 17, 5}, Shape{4, 64}}) {
      Net n;
      check(n.done({n.op(op, {n.input(s)})}), fp32_math, std::string(O::name) + " " + s.to_string(), lo, hi);
    }
  };
  run(Relu{}, -3, 3);
  run(Sigmoid{}, -6, 6);
  run(Tanh{}, -3, 3);
  run(Gelu{}, -4, 4);
  run(Exp{}, -3, 3);
  run(Log{}, 0.1f, 5);
  run(Sqrt{}, 0.f, 5);
  run(Erf{}, -3, 3);
  run(Neg{}, -3, 3);
  run(Abs{}, -3, 3);
  run(Reciprocal{}, 0.2f, 4);
  run(LeakyRelu{0.2f}, -3, 3);
  run(Clip{-0.5f, 0.7f}, -2, 2);
  run(HardSigmoid{}, -4, 4);
  run(HardSwish{}, -5, 5);
  run(Scale{-1.5f, 0.25f}, -3, 3);
  run(Identity{}, -3, 3);
}

TEST(CudaOps, Normalisation) {
  AUTOGRAPH_REQUIRE_GPU();
  {
    Net n;
    Value x = n.input({2, 6, 5, 5});
    Value y = n.op(BatchNorm{1e-3f}, {x, n.weight({6}), n.weight({6}), n.weight({6}), n.weight({6}, 0.5f, 1.5f)});
    check(n.done({y}), fp32_math, "BatchNorm");
  }
  for (auto [shape, axis] : {std::pair{Shape{3, 7, 64}, std::int64_t{-1}}, std::pair{Shape{3, 7, 64}, std::int64_t{-2}},
                             std::pair{Shape{2, 3000}, std::int64_t{-1}}}) {
    Net n;
    Shape norm(shape.dims().subspan(shape.normalize_axis(axis)));
    Value y = n.op(LayerNorm{axis, 1e-5f}, {n.input(shape), n.weight(norm), n.weight(norm)});
    check(n.done({y}), fp32_math, "LayerNorm " + shape.to_string() + " axis " + std::to_string(axis));
  }
}

TEST(CudaOps, Softmax) {
  AUTOGRAPH_REQUIRE_GPU();
  for (auto [shape, axis] : {std::pair{Shape{4, 10}, std::int64_t{-1}}, std::pair{Shape{2, 1500}, std::int64_t{-1}},
                             std::pair{Shape{2, 5, 7}, std::int64_t{1}}, std::pair{Shape{16, 4, 9, 9}, std::int64_t{-1}}}) {
    Net n;
    check(n.done({n.op(Softmax{axis}, {n.input(shape)})}), fp32_math, "Softmax " + shape.to_string() + " axis " + std::to_string(axis), -5, 5);
  }
}

TEST(CudaOps, ConcatInPlaceAndCopied) {
  AUTOGRAPH_REQUIRE_GPU();
  {  // outer 1: the producers write straight into the output; an input read as is gets copied
    Net n;
    Value x = n.input({1, 4, 4, 4}), z = n.input({1, 2, 4, 4});
    Value a = n.op(Relu{}, {x}), b = n.op(Sigmoid{}, {x});
    Value y = n.op(Concat{1}, {a, z, b, a});  // a twice: placed once, copied once; offsets on 16-byte boundaries
    Graph<> g = n.done({n.op(Tanh{}, {y}), a});
    check(g, fp32_math, "Concat in place");
    auto exe = testing::gpu().compile(g, schedule::sequential(KernelDag(g)), {}, fp32);
    auto const& lg = exe.lowered();
    auto const* concat = lg.node(y.node);
    ASSERT_NE(concat, nullptr);
    EXPECT_EQ(std::vector<char>(concat->placed.begin(), concat->placed.end()), (std::vector<char>{1, 0, 1, 0}));
  }
  {  // a concatenation along an inner axis is copied
    Net n;
    Value a = n.op(Relu{}, {n.input({2, 3, 4})}), b = n.op(Neg{}, {n.input({2, 5, 4})});
    check(n.done({n.op(Concat{-2}, {a, b})}), exact, "Concat axis 1 of 3");
  }
  {  // nested: an inner concat placed into an outer one
    Net n;
    Value x = n.input({1, 3, 4, 4});
    Value inner = n.op(Concat{1}, {n.op(Relu{}, {x}), n.op(Abs{}, {x})});
    Value outer = n.op(Concat{1}, {n.op(Neg{}, {x}), inner});
    check(n.done({outer}), exact, "Concat nested");
  }
}

TEST(CudaOps, SplitReshapeTransposeSlice) {
  AUTOGRAPH_REQUIRE_GPU();
  {
    Net n;
    Value x = n.op(Relu{}, {n.input({1, 10, 3, 3})});
    auto parts = n.ops(Split{1, {3, 3, 4}}, {x});  // outer 1: views
    auto inner = n.ops(Split{2, {1, 2}}, {parts[2]});  // copies
    check(n.done({n.op(Neg{}, {parts[0]}), parts[1], inner[0], n.op(Abs{}, {inner[1]})}), exact, "Split");
  }
  {
    Net n;
    Value x = n.input({2, 3, 4, 5});
    Value r = n.op(Reshape{{6, 20}}, {x});
    Value t1 = n.op(Transpose{{1, 0}}, {r});
    Value t2 = n.op(Transpose{{0, 2, 3, 1}}, {x});
    Value t3 = n.op(Transpose{{2, 0, 3, 1}}, {n.op(Exp{}, {x})});
    check(n.done({t1, t2, t3}), exact, "Reshape and Transpose");
  }
  {
    Net n;
    Value x = n.op(Neg{}, {n.input({4, 6, 8})});
    Value contiguous = n.op(Slice{{0}, {1}, {3}, {}}, {x});          // rows 1..2: a view
    Value single = n.op(Slice{{0, 1}, {2, 3}, {3, 4}, {}}, {x});     // one row of one matrix: a view
    Value strided = n.op(Slice{{2}, {1}, {8}, {3}}, {x});            // every third column: copied
    Value from_back = n.op(Slice{{1, 2}, {-4, -6}, {100, -1}, {1, 2}}, {x});
    check(n.done({n.op(Abs{}, {contiguous}), single, strided, from_back}), exact, "Slice");
  }
}

TEST(CudaOps, PadEnlargeReduce) {
  AUTOGRAPH_REQUIRE_GPU();
  {
    Net n;
    Value x = n.input({2, 3, 4, 5});
    Value p = n.op(Pad{{0, 1, 2, 0, 0, 0, 1, 3}, 0.5f}, {x});
    Value e = n.op(Enlarge{{5, 7}}, {n.input({4, 2, 1, 3})});  // a kernel, not folded: its input is not a weight
    check(n.done({p, e}), exact, "Pad and Enlarge");
  }
  struct Case {
    std::string what;
    Reduce op;
  };
  std::vector<Case> cases = {
      {"mean over channels", Reduce{ReduceKind::mean, {1}, true}},
      {"sum over 0 and 2, dropped", Reduce{ReduceKind::sum, {0, 2}, false}},
      {"mean of everything", Reduce{ReduceKind::mean, {}, false}},
      {"sum over the last axis", Reduce{ReduceKind::sum, {-1}, true}},
      {"mean over spatial", Reduce{ReduceKind::mean, {2, 3}, true}},
  };
  for (auto const& c : cases) {
    Net n;
    check(n.done({n.op(c.op, {n.input({3, 4, 5, 6})})}), fp32_math, "Reduce " + c.what);
  }
}

TEST(CudaOps, Resize) {
  AUTOGRAPH_REQUIRE_GPU();
  auto resize = [](std::vector<std::int64_t> sizes, ResizeMode m, ResizeCoordinate c) {
    Resize r;
    r.sizes = std::move(sizes);
    r.mode = m;
    r.coordinate = c;
    return r;
  };
  std::vector<std::pair<std::string, Resize>> cases = {
      {"nearest 2x asymmetric floor",
       [&] {
         auto r = resize({1, 2, 8, 10}, ResizeMode::nearest, ResizeCoordinate::asymmetric);
         r.nearest = ResizeNearest::floor;
         return r;
       }()},
      {"linear 2x half_pixel", resize({1, 2, 8, 10}, ResizeMode::linear, ResizeCoordinate::half_pixel)},
      {"linear down pytorch_half_pixel", resize({1, 2, 3, 2}, ResizeMode::linear, ResizeCoordinate::pytorch_half_pixel)},
      {"cubic align_corners", resize({1, 2, 7, 9}, ResizeMode::cubic, ResizeCoordinate::align_corners)},
      {"cubic exclude_outside",
       [&] {
         auto r = resize({1, 2, 9, 11}, ResizeMode::cubic, ResizeCoordinate::half_pixel);
         r.exclude_outside = true;
         return r;
       }()},
      {"tf_crop_and_resize extrapolated",
       [&] {
         auto r = resize({1, 2, 6, 6}, ResizeMode::linear, ResizeCoordinate::tf_crop_and_resize);
         r.roi = {0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3};
         r.extrapolation_value = -7.f;
         return r;
       }()},
  };
  for (auto const& [what, op] : cases) {
    Net n;
    check(n.done({n.op(op, {n.input({1, 2, 4, 5})})}), fp32_math, "Resize " + what);
  }
}

TEST(CudaOps, RejectsWhatItCannotRunBeforeLaunching) {
  AUTOGRAPH_REQUIRE_GPU();
  {
    Net n;
    Graph<> g = n.done({n.op(Relu{}, {n.input({2, 3}, DType::float16)})});
    try {
      (void)testing::gpu().compile(g, schedule::sequential(KernelDag(g)));
      FAIL() << "a float16 graph was accepted";
    } catch (CudaError const& e) {
      EXPECT_NE(std::string(e.what()).find("float32"), std::string::npos) << e.what();
    }
  }
  {
    Net n;
    Value y = n.op(ConvTranspose2D{}, {n.input({1, 0, 4, 4}), n.weight({0, 2, 3, 3})});
    Graph<> g = n.done({y});
    try {
      (void)testing::gpu().compile(g, schedule::sequential(KernelDag(g)));
      FAIL() << "a transposed convolution without input channels was accepted";
    } catch (CudaError const& e) {
      EXPECT_NE(std::string(e.what()).find(g.label(y.node)), std::string::npos) << "the error names the node: " << e.what();
    }
  }
  {  // a weight without data: only measuring may make some up
    Net n;
    Value x = n.input({1, 4});
    Value w{n.g.add(Weight{{Shape{4, 2}}, nullptr, 7}, {}, "shape_only"), 0};
    Graph<> g = n.done({n.op(MatMul{}, {x, w})});
    EXPECT_THROW((void)testing::gpu().compile(g, schedule::sequential(KernelDag(g))), ExecutionError);
    EXPECT_GT(testing::gpu().measure(g), 0.0);
  }
}

}  // namespace
}  // namespace autograph::cuda
