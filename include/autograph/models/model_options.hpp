#pragma once
// ModelOptions: what every model builder in autograph::models takes.
//
//   auto g = models::resnet50();                                  // the paper's shapes, shape-only weights
//   auto h = models::inception_v3({.batch = 8, .weight_seed = 1}); // batch 8, random weights from seed 1
//
// Unset fields mean "what the benchmark used": batch 1 for the CNNs, the RNN and TASO's BERT,
// 16 sequences for the BERT encoder; each CNN's published input side. Weights are shape-only
// unless weight_seed is set (then fill_random_weights(g, *weight_seed) gives every weight
// reproducible random data).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "autograph/core/dtype.hpp"
#include "autograph/core/error.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"

namespace autograph::models {

struct ModelOptions {
  std::optional<std::int64_t> batch = {};        // unset: the benchmark's batch (see each model)
  DType dtype = DType::float32;                  // of the inputs and the weights
  std::optional<std::int64_t> resolution = {};   // image side (CNNs, ViT; BERT and RNNTC ignore it); unset: published
  std::uint64_t seed = 0;                        // RandWire: seeds the random wiring
  std::optional<std::uint64_t> weight_seed = {}; // set: random weight data from this seed; unset: shape-only weights
};

namespace detail {

/// The batch to build with: the option, or the benchmark's default. Throws when it is < 1.
inline std::int64_t batch_of(ModelOptions const& o, std::string const& model, std::int64_t fallback = 1) {
  std::int64_t b = o.batch.value_or(fallback);
  if (b < 1) throw Error(model + ": batch must be >= 1, got " + std::to_string(b));
  return b;
}

/// The image side to build with: the option, or the published size. Throws below `minimum`
/// (the smallest side for which every layer of the model still has a non-empty output).
inline std::int64_t resolution_of(ModelOptions const& o, std::string const& model, std::int64_t fallback, std::int64_t minimum) {
  std::int64_t r = o.resolution.value_or(fallback);
  if (r < minimum)
    throw Error(model + ": resolution must be >= " + std::to_string(minimum) + ", got " + std::to_string(r));
  return r;
}

/// A builder whose weights take the options' dtype.
inline GraphBuilder<> builder_for(ModelOptions const& o) {
  GraphBuilder<> b;
  b.set_weight_dtype(o.dtype);
  return b;
}

/// The finished graph, with random weight data when the options ask for it.
inline Graph<> finish(GraphBuilder<>&& b, std::vector<Value> outputs, ModelOptions const& o) {
  Graph<> g = std::move(b).build(std::move(outputs));
  if (o.weight_seed) fill_random_weights(g, *o.weight_seed);
  return g;
}

/// x[N, C, 1, 1] (a globally pooled map) as [N, C].
inline Value flatten(GraphBuilder<>& b, Value x, std::string const& name = "flatten") {
  return b.reshape(x, {b.shape(x)[0], b.shape(x)[1] * b.shape(x)[2] * b.shape(x)[3]}, name);
}

/// Symmetric padding {top, left, bottom, right} for a kernel: what PyTorch's padding=(ph, pw) means.
inline std::array<std::int64_t, 4> pad2(std::int64_t ph, std::int64_t pw) { return {ph, pw, ph, pw}; }

}  // namespace detail
}  // namespace autograph::models
