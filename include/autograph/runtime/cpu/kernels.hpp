#pragma once
// Reference CPU kernels for every built-in op (one file per op family). Link with -lopenblas.
#include "autograph/runtime/cpu/attention.hpp"
#include "autograph/runtime/cpu/conv2d.hpp"
#include "autograph/runtime/cpu/conv_transpose.hpp"
#include "autograph/runtime/cpu/elementwise.hpp"
#include "autograph/runtime/cpu/layout.hpp"
#include "autograph/runtime/cpu/matmul.hpp"
#include "autograph/runtime/cpu/normalization.hpp"
#include "autograph/runtime/cpu/pool2d.hpp"
#include "autograph/runtime/cpu/reduce.hpp"
#include "autograph/runtime/cpu/resize.hpp"
#include "autograph/runtime/cpu/softmax.hpp"
#include "autograph/runtime/cpu/unary.hpp"
