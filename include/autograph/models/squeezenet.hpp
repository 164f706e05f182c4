#pragma once
// SqueezeNet 1.1 as torchvision builds it (torchvision.models.squeezenet1_1):
//   conv 3x3/2 (64) + relu, maxpool 3/2 (ceil), fire(16, 64, 64) x2, maxpool 3/2 (ceil),
//   fire(32, 128, 128) x2, maxpool 3/2 (ceil), fire(48, 192, 192) x2, fire(64, 256, 256) x2,
//   classifier: (dropout) conv 1x1 (1000) + relu, global average pool.
// A fire module squeezes with a 1x1 conv, then expands with a 1x1 and a 3x3 (pad 1) conv side
// by side and concatenates them; every conv has a bias and a ReLU.
//
// Published sizes (torchvision): 1,235,496 parameters, 0.35 GMACs at 224.
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {
namespace detail {

inline Value conv_relu(GraphBuilder<>& b, Value x, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t pad,
                       std::string const& name) {
  Value y = b.conv2d(x, out, {k, k}, {.stride = {stride, stride}, .pad = pad2(pad, pad), .bias = true}, name);
  return b.relu(y, name + "_activation");
}

inline Value fire(GraphBuilder<>& b, Value x, std::int64_t squeeze, std::int64_t expand1x1, std::int64_t expand3x3) {
  Value s = conv_relu(b, x, squeeze, 1, 1, 0, "squeeze");
  return b.concat({conv_relu(b, s, expand1x1, 1, 1, 0, "expand1x1"), conv_relu(b, s, expand3x3, 3, 1, 1, "expand3x3")}, 1, "concat");
}

}  // namespace detail

/// SqueezeNet 1.1, input [batch, 3, 224, 224] by default; output [batch, 1000].
inline Graph<> squeezenet1_1(ModelOptions const& o = {}) {
  using namespace detail;
  std::int64_t n = batch_of(o, "squeezenet1_1");
  std::int64_t side = resolution_of(o, "squeezenet1_1", 224, 25);
  auto b = builder_for(o);
  PoolOptions pool{.stride = {2, 2}, .ceil_mode = true};
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  x = conv_relu(b, x, 64, 3, 2, 0, "features.0");
  x = b.max_pool(x, {3, 3}, pool, "features.2");
  struct Fire {
    char const* name;
    std::int64_t squeeze, expand;
    bool pool_after;
  };
  constexpr Fire fires[] = {{"features.3", 16, 64, false},  {"features.4", 16, 64, true},   {"features.6", 32, 128, false},
                            {"features.7", 32, 128, true},  {"features.9", 48, 192, false}, {"features.10", 48, 192, false},
                            {"features.11", 64, 256, false}, {"features.12", 64, 256, false}};
  for (auto const& f : fires) {
    {
      auto s = b.scope(f.name);
      x = fire(b, x, f.squeeze, f.expand, f.expand);
    }
    if (f.pool_after) x = b.max_pool(x, {3, 3}, pool, "maxpool");
  }
  x = conv_relu(b, x, 1000, 1, 1, 0, "classifier.1");
  x = flatten(b, b.global_avg_pool(x, "classifier.3"));
  return finish(std::move(b), {x}, o);
}

}  // namespace autograph::models
