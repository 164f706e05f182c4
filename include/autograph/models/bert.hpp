#pragma once
// BERT as the AutoGraph paper benchmarks it: the graph of TASO's examples/bert.py
// (github.com/jiazhihao/TASO, examples/bert.py), which AutoGraph takes its BERT workload from.
// That file builds, on an input of 64 tokens x 1024 hidden ([64, 1024], no batch dimension),
// 8 attention layers of 16 heads, each:
//   q, k, v = x Wq, x Wk, x Wv                 three [1024, 1024] weights, no bias
//   q, k, v -> reshape [64, 16, 64] -> transpose (1, 0, 2) -> [16, 64, 64]
//   logits = q k                               batched matmul of k as it is (not k^T): the
//                                              shapes agree only because head width = tokens
//   out = logits v -> transpose (1, 0, 2) -> reshape [64, 1024]
//   x' = x Wo                                  a fourth [1024, 1024] weight
// and nothing else: no biases, no scaling, no softmax, no residual, no LayerNorm, no FFN.
// The final linear layer reads the layer's input, not the attention result (the file's
// `output = graph.matmul(input, linear)`), so each layer's attention branch ends in a tensor
// nothing reads, and the next layer reads x Wo alone. TASO keeps such operators (its graph
// costs every operator; its ONNX export makes each one nothing reads a graph output), so this
// graph keeps them as outputs too: output 0 is the last layer's x', outputs 1..8 are the
// attention results of layers 0..7. Four matmuls read each layer's input, and the eight
// attention branches are independent of everything after them: the parallelism a multi-stream
// schedule and sibling-matmul merging find here.
//
// Sizes (derived, see the test): 4 * 1024^2 = 4,194,304 parameters per layer, 33,554,432 in
// all; 276,824,064 MACs per layer, 2.215 GMACs (4.43 GFLOP) in all.
//
// The batch option adds a leading dimension: batch 1 (the default) is TASO's graph exactly;
// batch B > 1 gives input [B, 64, 1024] and the same operators over B sequences (reshape to
// [B, 64, 16, 64], transpose (0, 2, 1, 3)). The zoo's `bert_encoder_8x1024` (bert_encoder.hpp)
// is a full BERT encoder instead.
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct BertConfig {
  std::int64_t layers = 8;
  std::int64_t tokens = 64;    // seq_length
  std::int64_t hidden = 1024;  // hidden_dims
  std::int64_t heads = 16;
};

/// TASO's BERT graph; input "input" [tokens, hidden] (batch 1) or [batch, tokens, hidden];
/// outputs: the last layer's result, then each layer's attention result (see above).
inline Graph<> bert(BertConfig const& c = {}, ModelOptions const& o = {}) {
  std::int64_t n = detail::batch_of(o, "bert", 1);
  if (c.layers < 1 || c.tokens < 1 || c.heads < 1) throw Error("bert: layers, tokens and heads must be >= 1");
  if (c.hidden % c.heads != 0)
    throw Error("bert: hidden size " + std::to_string(c.hidden) + " does not split into " + std::to_string(c.heads) + " heads");
  std::int64_t d = c.hidden / c.heads;
  if (d != c.tokens)
    throw Error("bert: TASO's graph multiplies q by k untransposed, which needs the head width (" + std::to_string(d) +
                ") to equal the tokens (" + std::to_string(c.tokens) + ")");
  // Shapes with the batch dimension in front when there is one.
  bool batched = n > 1;
  auto with_batch = [&](std::vector<std::int64_t> dims) {
    if (batched) dims.insert(dims.begin(), n);
    return dims;
  };
  std::vector<std::int64_t> swap_tokens_heads = batched ? std::vector<std::int64_t>{0, 2, 1, 3} : std::vector<std::int64_t>{1, 0, 2};

  auto b = detail::builder_for(o);
  Value x = b.input("input", Shape(with_batch({c.tokens, c.hidden})), o.dtype);
  std::vector<Value> attention_results;
  for (std::int64_t l = 0; l < c.layers; ++l) {
    auto s = b.scope("layer." + std::to_string(l));
    auto heads_first = [&](Value t, std::string const& name) {
      Value r = b.reshape(t, with_batch({c.tokens, c.heads, d}), name + "_reshape");
      return b.transpose(r, swap_tokens_heads, name + "_transpose");
    };
    Value q = heads_first(b.matmul(x, b.weight("query.weight", {c.hidden, c.hidden}), Activation::none, "query"), "query");
    Value k = heads_first(b.matmul(x, b.weight("key.weight", {c.hidden, c.hidden}), Activation::none, "key"), "key");
    Value v = heads_first(b.matmul(x, b.weight("value.weight", {c.hidden, c.hidden}), Activation::none, "value"), "value");
    Value logits = b.matmul(q, k, Activation::none, "logits");
    Value out = b.transpose(b.matmul(logits, v, Activation::none, "context"), swap_tokens_heads, "context_transpose");
    attention_results.push_back(b.reshape(out, with_batch({c.tokens, c.hidden}), "attention"));
    x = b.matmul(x, b.weight("linear.weight", {c.hidden, c.hidden}), Activation::none, "linear");
  }
  std::vector<Value> outputs{x};
  outputs.insert(outputs.end(), attention_results.begin(), attention_results.end());
  return detail::finish(std::move(b), std::move(outputs), o);
}

inline Graph<> bert(ModelOptions const& o) { return bert(BertConfig{}, o); }

}  // namespace autograph::models
