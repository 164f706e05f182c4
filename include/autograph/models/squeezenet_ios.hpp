#pragma once
// SqueezeNet as the IOS work builds and measures it (mit-han-lab/inter-operator-scheduler,
// python/ios/models/squeezenet.py: squeezenet() and fire_complex()): SqueezeNet 1.0's 7x7/2 stem
// of 96 channels and "complex bypass" on every fire module (Iandola et al., 2016, Sec. 6), not
// torchvision's SqueezeNet 1.1 (squeezenet.hpp). The IOS thesis's SqueezeNet figures time this
// network, so validate-sim runs their records on it.
//
//   block1   conv 7x7/2 pad 3 (96) + relu, maxpool 3/2 (floor)
//   block2-4   fire(16, 64), fire(16, 64), fire(32, 128)
//   block5   maxpool 3/2
//   block6-9   fire(32, 128), fire(48, 192), fire(48, 192), fire(64, 256)
//   block10  maxpool 3/2
//   block11  fire(64, 256)
//   block12  conv 1x1 (1000) + relu, global average pool
//
// A fire module squeezes with a 1x1 conv, expands with a 3x3 (pad 1) and a 1x1 conv side by side
// and concatenates them in that order (IOS's identity of two terms), then adds a bypass (IOS's
// identity of one two-value term): the module's input itself when it has the 2 x expand channels
// of the concatenation, else a 1x1 conv of it to 2 x expand channels. IOS's conv2d() has a bias and
// a ReLU by default (common.py: act="relu"; ir.py: Conv.bias_shape), the bypass conv included;
// the sum has no ReLU after it. IOS's pools have no padding and round down (ir.py: Pool.infer_shape).
// Input 3x224x224 (squeezenet()'s placeholder).
//
// Sizes, from IOS's code (Conv.weight_shape + bias_shape over the convs above): 1,589,672
// parameters; 1.19 G multiply-accumulates at 224. IOS publishes neither.
#include <string>

#include "autograph/models/model_options.hpp"
#include "autograph/models/squeezenet.hpp"

namespace autograph::models {
namespace detail {

/// IOS's fire_complex(v, squeeze, expand): a fire module whose output is the concatenation of its
/// expands plus a bypass of its input.
inline Value fire_with_bypass(GraphBuilder<>& b, Value x, std::int64_t squeeze, std::int64_t expand) {
  Value s = conv_relu(b, x, squeeze, 1, 1, 0, "squeeze");
  Value expanded = b.concat({conv_relu(b, s, expand, 3, 1, 1, "expand3x3"), conv_relu(b, s, expand, 1, 1, 0, "expand1x1")}, 1, "concat");
  Value bypass = b.shape(x)[1] == 2 * expand ? x : conv_relu(b, x, 2 * expand, 1, 1, 0, "bypass");
  return b.add(expanded, bypass, "add");
}

}  // namespace detail

/// IOS's SqueezeNet, input [batch, 3, 224, 224] by default; output [batch, 1000].
inline Graph<> squeezenet_ios(ModelOptions const& o = {}) {
  using namespace detail;
  std::int64_t n = batch_of(o, "squeezenet_ios");
  // The smallest side whose third pool still has an output: 29 -> conv 15 -> pools 7, 3, 1.
  std::int64_t side = resolution_of(o, "squeezenet_ios", 224, 29);
  auto b = builder_for(o);
  PoolOptions pool{.stride = {2, 2}};
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  {
    auto s = b.scope("block1");
    x = b.max_pool(conv_relu(b, x, 96, 7, 2, 3, "conv"), {3, 3}, pool, "maxpool");
  }
  struct Block {
    char const* name;
    std::int64_t squeeze, expand;  // 0: a max pool (block_middle)
  };
  constexpr Block blocks[] = {{"block2", 16, 64},  {"block3", 16, 64},  {"block4", 32, 128}, {"block5", 0, 0},
                              {"block6", 32, 128}, {"block7", 48, 192}, {"block8", 48, 192}, {"block9", 64, 256},
                              {"block10", 0, 0},   {"block11", 64, 256}};
  for (auto const& blk : blocks) {
    auto s = b.scope(blk.name);
    x = blk.squeeze ? fire_with_bypass(b, x, blk.squeeze, blk.expand) : b.max_pool(x, {3, 3}, pool, "maxpool");
  }
  {
    auto s = b.scope("block12");
    x = b.global_avg_pool(conv_relu(b, x, 1000, 1, 1, 0, "conv"), "global_avg_pool");
  }
  x = flatten(b, x);
  return finish(std::move(b), {x}, o);
}

}  // namespace autograph::models
