#pragma once
// RNNTC as the MetaFlow paper's code builds and times it (jiazhihao/metaflow_sysml19,
// code/sru.h: RNNTC_SRU and SRUNode; code/ops.h: BATCH_SIZE 1): one SRU layer of width
// EMBED_SIZE = 1024 unrolled over LENGTH = 20 steps, batch 1, with no embedding and no classifier
// (the zoo's rnntc_sru adds both, over 10 steps). validate-sim runs the MetaFlow paper's RNNTC
// records on it.
//
//   x            one input [1, batch, 1024]: every step reads it (RNNTC_SRU's xs[i] = noop(input))
//   c_0          the same input (c = noop(input))
//   per step t:  x1 = x W1_t,  f = sigmoid(x W2_t),  r = sigmoid(x W3_t)
//                c_t = f * c_{t-1} + f * x1
//                h_t = r * c_t + r * x
//
// The cell is SRUNode's as the repository keeps it (its last version leaves the body in comments
// behind an assert): three products with no bias, each `graph->matmul(x, EMBED_SIZE)` call
// creating a weight of its own (as conv2d(input, outputC, ...) does, ops.h), so every step has its
// own three 1024 x 1024 matrices; two sigmoids, four products and two sums elementwise. Nothing
// reads h_t (the graph has no classifier): the outputs are every h_t and the last c, so that
// nothing MetaFlow ran is left out. Sizes: 20 x 3 x 1024^2 = 62,914,560 parameters and as many
// multiply-accumulates at batch 1.
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct MetaflowSruConfig {
  std::int64_t steps = 20;     // sru.h: LENGTH
  std::int64_t hidden = 1024;  // sru.h: EMBED_SIZE
};

/// MetaFlow's RNNTC; input "x" [1, batch, hidden]; outputs h_0 ... h_{steps-1} and c_{steps-1}.
inline Graph<> rnntc_metaflow(MetaflowSruConfig const& c = {}, ModelOptions const& o = {}) {
  std::int64_t n = detail::batch_of(o, "rnntc_metaflow");
  if (c.steps < 1 || c.hidden < 1) throw Error("rnntc_metaflow: steps and hidden must be >= 1");
  auto b = detail::builder_for(o);
  Value x = b.input("x", {1, n, c.hidden}, o.dtype);
  Value cell = x;
  std::vector<Value> outputs;
  for (std::int64_t t = 0; t < c.steps; ++t) {
    auto s = b.scope("step" + std::to_string(t));
    auto product = [&](char const* name) { return b.matmul(x, b.weight(std::string(name) + ".weight", Shape{c.hidden, c.hidden}), Activation::none, name); };
    Value x1 = product("x1");
    Value f = b.sigmoid(product("x2"), "forget");
    Value r = b.sigmoid(product("x3"), "reset");
    cell = b.add(b.mul(f, cell, "forget_gate"), b.mul(f, x1, "input_gate"), "cell");
    outputs.push_back(b.add(b.mul(r, cell, "reset_gate"), b.mul(r, x, "highway"), "hidden"));
  }
  outputs.push_back(cell);
  return detail::finish(std::move(b), std::move(outputs), o);
}

inline Graph<> rnntc_metaflow(ModelOptions const& o) { return rnntc_metaflow(MetaflowSruConfig{}, o); }

}  // namespace autograph::models
