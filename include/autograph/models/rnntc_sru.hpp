#pragma once
// RNNTC-SRU: recurrent text classification with one Simple Recurrent Unit layer (Lei et al.,
// "Simple Recurrent Units for Highly Parallelizable Recurrence"), unrolled over 10 time steps,
// batch 1, hidden 1024, as in the MetaFlow/TASO-style RNN benchmarks.
//
//   input "tokens" [steps, batch, vocab]: one one-hot row per token
//   x      = tokens E                       embedding: the one-hot rows times the table E [vocab, hidden]
//   x_t    = split(x)[t]                    [1, batch, hidden]
//   x~_t   = x_t W                          } three matmuls per step that share x_t and
//   f_t    = sigmoid(x_t W_f + b_f)         } do not depend on the recurrence: the
//   r_t    = sigmoid(x_t W_r + b_r)         } parallelism SRU was designed for
//   c_t    = f_t * c_{t-1} + (1 - f_t) * x~_t     (c_0 = 0, so c_1 = (1 - f_1) * x~_1)
//   h_t    = r_t * tanh(c_t) + (1 - r_t) * x_t    (highway connection)
//   output = softmax(h_T W_c + b_c)         over the classes
// W, W_f, W_r, b_f, b_r are shared by every step (the same Weight nodes). 1 - f is a Scale
// (x * -1 + 1).
//
// Choices the benchmark leaves open (documented, configurable): the vocabulary is 1024 words
// by default. The one-hot product stands in for an embedding lookup whose real cost is a row
// copy; a realistic vocabulary (tens of thousands) would make this stand-in dominate the
// model's MACs. 2 classes (binary sentiment, like the SRU paper's MR/CR/SUBJ tasks).
//
// Sizes (derived, see the test): vocab*H + 3H^2 + 2H + H*classes + classes parameters =
// 4,198,402 at the defaults; steps*batch*(vocab*H + 3H^2) + batch*H*classes MACs = 41,945,088.
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct SruConfig {
  std::int64_t steps = 10;
  std::int64_t hidden = 1024;
  std::int64_t vocab = 1024;
  std::int64_t num_classes = 2;
};

/// RNNTC-SRU; input "tokens" [steps, batch, vocab] (one-hot rows), output [batch, classes]
/// class probabilities.
inline Graph<> rnntc_sru(SruConfig const& c = {}, ModelOptions const& o = {}) {
  std::int64_t n = detail::batch_of(o, "rnntc_sru");
  if (c.steps < 1 || c.hidden < 1 || c.vocab < 1 || c.num_classes < 1)
    throw Error("rnntc_sru: steps, hidden, vocab and num_classes must be >= 1");
  auto b = detail::builder_for(o);
  Value tokens = b.input("tokens", {c.steps, n, c.vocab}, o.dtype);
  Value x = b.matmul(tokens, b.weight("embedding.weight", Shape{c.vocab, c.hidden}, WeightInit::uniform), Activation::none, "embedding");
  std::vector<Value> xs{x};
  if (c.steps > 1) xs = b.split(x, 0, std::vector<std::int64_t>(static_cast<std::size_t>(c.steps), 1), "steps");

  Value w = b.weight("sru.weight", Shape{c.hidden, c.hidden});
  Value w_f = b.weight("sru.weight_f", Shape{c.hidden, c.hidden});
  Value w_r = b.weight("sru.weight_r", Shape{c.hidden, c.hidden});
  Value b_f = b.weight("sru.bias_f", Shape{c.hidden}, WeightInit::uniform);
  Value b_r = b.weight("sru.bias_r", Shape{c.hidden}, WeightInit::uniform);

  Value cell, h;
  for (std::int64_t t = 0; t < c.steps; ++t) {
    auto s = b.scope("step" + std::to_string(t));
    Value xt = xs[static_cast<std::size_t>(t)];
    Value x_tilde = b.matmul(xt, w, Activation::none, "x_tilde");
    Value f = b.sigmoid(b.add(b.matmul(xt, w_f, Activation::none, "forget_matmul"), b_f, "forget_bias"), "forget");
    Value r = b.sigmoid(b.add(b.matmul(xt, w_r, Activation::none, "reset_matmul"), b_r, "reset_bias"), "reset");
    Value carry = b.mul(b.scale(f, -1.f, 1.f, "one_minus_forget"), x_tilde, "input_gate");
    cell = t == 0 ? carry : b.add(b.mul(f, cell, "forget_gate"), carry, "cell");
    Value highway = b.mul(b.scale(r, -1.f, 1.f, "one_minus_reset"), xt, "highway");
    h = b.add(b.mul(r, b.tanh(cell, "cell_tanh"), "reset_gate"), highway, "hidden");
  }
  Value last = b.reshape(h, {n, c.hidden}, "last_hidden");
  Value probs = b.softmax(b.linear(last, c.num_classes, true, Activation::none, "classifier"), -1, "softmax");
  return detail::finish(std::move(b), {probs}, o);
}

inline Graph<> rnntc_sru(ModelOptions const& o) { return rnntc_sru(SruConfig{}, o); }

}  // namespace autograph::models
