#pragma once
// Every built-in operator, and the set of them.
#include "autograph/ops/add_layer_norm.hpp"
#include "autograph/ops/any_op.hpp"
#include "autograph/ops/batch_norm.hpp"
#include "autograph/ops/concat.hpp"
#include "autograph/ops/conv2d.hpp"
#include "autograph/ops/conv_transpose.hpp"
#include "autograph/ops/elementwise.hpp"
#include "autograph/ops/epilogue.hpp"
#include "autograph/ops/fused_attention.hpp"
#include "autograph/ops/layer_norm.hpp"
#include "autograph/ops/matmul.hpp"
#include "autograph/ops/op_set.hpp"
#include "autograph/ops/pad.hpp"
#include "autograph/ops/pool2d.hpp"
#include "autograph/ops/reduce.hpp"
#include "autograph/ops/reshape.hpp"
#include "autograph/ops/resize.hpp"
#include "autograph/ops/slice.hpp"
#include "autograph/ops/softmax.hpp"
#include "autograph/ops/source.hpp"
#include "autograph/ops/split.hpp"
#include "autograph/ops/transpose.hpp"
#include "autograph/ops/unary.hpp"

namespace autograph {

// X(Op) for every built-in operator, in BuiltinOps' order.
#define AUTOGRAPH_FOR_EACH_BUILTIN_OP(X)                                                                                         \
  X(Input) X(Weight) X(Conv2D) X(Pool2D) X(MatMul) X(Add) X(Sub) X(Mul) X(Div) X(Pow) X(Max) X(Min) X(Relu) X(Sigmoid) X(Tanh) \
  X(Gelu) X(Exp) X(Log) X(Sqrt) X(Erf) X(Neg) X(Abs) X(Reciprocal) X(LeakyRelu) X(Clip) X(HardSigmoid) X(HardSwish) X(Scale)  \
  X(Identity) X(BatchNorm) X(LayerNorm) X(Softmax) X(Concat) X(Split) X(Reshape) X(Transpose) X(Slice) X(Pad) X(Enlarge)     \
  X(Reduce) X(ConvTranspose2D) X(Resize) X(FusedAttention) X(AddLayerNorm) \
  X(Conv2DEpilogue) X(MatMulEpilogue)

using BuiltinOps =
    OpSet<Input, Weight, Conv2D, Pool2D, MatMul, Add, Sub, Mul, Div, Pow, Max, Min, Relu, Sigmoid, Tanh, Gelu, Exp, Log, Sqrt, Erf,
          Neg, Abs, Reciprocal, LeakyRelu, Clip, HardSigmoid, HardSwish, Scale, Identity, BatchNorm, LayerNorm, Softmax, Concat,
          Split, Reshape, Transpose, Slice, Pad, Enlarge, Reduce, ConvTranspose2D, Resize, FusedAttention, AddLayerNorm, Conv2DEpilogue, MatMulEpilogue>;

#define AUTOGRAPH_BUILTIN_OP_IN_SET(Op) &&BuiltinOps::contains<Op>
#define AUTOGRAPH_BUILTIN_OP_COUNT(Op) +1
static_assert(true AUTOGRAPH_FOR_EACH_BUILTIN_OP(AUTOGRAPH_BUILTIN_OP_IN_SET) &&
                  BuiltinOps::size == 0 AUTOGRAPH_FOR_EACH_BUILTIN_OP(AUTOGRAPH_BUILTIN_OP_COUNT),
              "AUTOGRAPH_FOR_EACH_BUILTIN_OP must list exactly BuiltinOps");
#undef AUTOGRAPH_BUILTIN_OP_IN_SET
#undef AUTOGRAPH_BUILTIN_OP_COUNT

#if defined(AUTOGRAPH_PRECOMPILED)
// Each built-in operator's type-erased table (shape inference, costs, hashing, equality),
// compiled once in src/defaults/builtin_ops.cpp for the programs that link autograph::defaults:
// every file that builds a graph otherwise compiled all of them again. Its members are called
// through the vtable only, so nothing of them is instantiated here.
#define AUTOGRAPH_EXTERN_HOLDER(Op) extern template struct AnyOp::Holder<Op>;
AUTOGRAPH_FOR_EACH_BUILTIN_OP(AUTOGRAPH_EXTERN_HOLDER)
#undef AUTOGRAPH_EXTERN_HOLDER
#endif

}  // namespace autograph
