#pragma once
// Every built-in operator, and the set of them.
#include "autograph/ops/any_op.hpp"
#include "autograph/ops/batch_norm.hpp"
#include "autograph/ops/concat.hpp"
#include "autograph/ops/conv2d.hpp"
#include "autograph/ops/conv_transpose.hpp"
#include "autograph/ops/elementwise.hpp"
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

using BuiltinOps =
    OpSet<Input, Weight, Conv2D, Pool2D, MatMul, Add, Sub, Mul, Div, Pow, Max, Min, Relu, Sigmoid, Tanh, Gelu, Exp, Log, Sqrt, Erf,
          Neg, Abs, Reciprocal, LeakyRelu, Clip, HardSigmoid, HardSwish, Scale, Identity, BatchNorm, LayerNorm, Softmax, Concat,
          Split, Reshape, Transpose, Slice, Pad, Enlarge, Reduce, ConvTranspose2D, Resize>;

}  // namespace autograph
