#pragma once
// ResNet-34, ResNet-50 and ResNeXt-50 (32x4d) as torchvision builds them
// (torchvision.models.resnet): a 7x7/2 stem conv, 3x3/2 max pool, then [3, 4, 6, 3] blocks
// (16 in all) in four stages, global average pool, a 1000-way fully connected layer.
//
// Basic block (ResNet-34; the stride on the first conv):
//   y = relu(bn(conv3x3(x, planes, stride)))
//   y = bn(conv3x3(y, planes))
//   out = relu(y + shortcut),  shortcut = bn(conv1x1/stride(x)) on the first block of stages 2-4
//
// Bottleneck (torchvision's "ResNet v1.5": the stride sits on the 3x3 conv):
//   y = relu(bn(conv1x1(x, width)))
//   y = relu(bn(conv3x3(y, width, stride, groups)))
//   y = bn(conv1x1(y, 4 * planes))
//   out = relu(y + shortcut),  shortcut = bn(conv1x1/stride(x)) on the first block of a stage
// with width = planes * base_width / 64 * groups: planes for ResNet-50 (groups 1, base 64),
// 2 * planes for ResNeXt-50 32x4d (groups 32, base 4). Convs have no bias; BatchNorm eps 1e-5.
//
// Published sizes (torchvision): resnet34 21,797,672 parameters, 3.67 GMACs at 224; resnet50
// 25,557,032 parameters, 4.09 GMACs; resnext50_32x4d 25,028,904 parameters, 4.23 GMACs.
#include <array>
#include <string>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct ResNetConfig {
  std::array<int, 4> blocks{3, 4, 6, 3};
  std::int64_t groups = 1;
  std::int64_t width_per_group = 64;
  std::int64_t num_classes = 1000;
  // DETR's FrozenBatchNorm2d (detr/models/backbone.py): the same inference arithmetic as
  // BatchNorm, but scale, bias, mean and var are all buffers, none a trained parameter.
  bool frozen_batch_norm = false;
};

namespace detail {

/// BatchNorm (eps 1e-5), or DETR's frozen BatchNorm: the same op whose four tensors are buffers.
inline Value norm(GraphBuilder<>& b, Value x, std::string const& name, bool frozen) {
  if (!frozen) return b.batch_norm(x, 1e-5f, name);
  Shape c{b.shape(x)[1]};
  return b.add(BatchNorm{1e-5f},
               {x, b.buffer(name + ".weight", c, WeightInit::positive), b.buffer(name + ".bias", c, WeightInit::uniform),
                b.buffer(name + ".running_mean", c, WeightInit::uniform), b.buffer(name + ".running_var", c, WeightInit::positive)},
               name);
}

inline Value conv_bn(GraphBuilder<>& b, Value x, std::int64_t out, std::int64_t k, std::int64_t stride, std::int64_t groups,
                     std::string const& conv, std::string const& bn, bool frozen = false) {
  Value y = b.conv2d(x, out, {k, k}, {.stride = {stride, stride}, .pad = pad2(k / 2, k / 2), .groups = groups}, conv);
  return norm(b, y, bn, frozen);
}

/// x itself, or a strided 1x1 conv + BN to `out` channels where the block changes its shape.
inline Value shortcut(GraphBuilder<>& b, Value x, std::int64_t out, std::int64_t stride, bool frozen) {
  if (stride == 1 && b.shape(x)[1] == out) return x;
  auto s = b.scope("downsample");
  return conv_bn(b, x, out, 1, stride, 1, "conv", "bn", frozen);
}

inline Value bottleneck(GraphBuilder<>& b, Value x, std::int64_t planes, std::int64_t stride, ResNetConfig const& c) {
  std::int64_t width = planes * c.width_per_group / 64 * c.groups;
  std::int64_t out = planes * 4;
  bool f = c.frozen_batch_norm;
  Value y = b.relu(conv_bn(b, x, width, 1, 1, 1, "conv1", "bn1", f), "relu1");
  y = b.relu(conv_bn(b, y, width, 3, stride, c.groups, "conv2", "bn2", f), "relu2");
  y = conv_bn(b, y, out, 1, 1, 1, "conv3", "bn3", f);
  return b.relu(b.add(y, shortcut(b, x, out, stride, f), "add"), "relu3");
}

inline Value basic_block(GraphBuilder<>& b, Value x, std::int64_t planes, std::int64_t stride, bool frozen) {
  Value y = b.relu(conv_bn(b, x, planes, 3, stride, 1, "conv1", "bn1", frozen), "relu1");
  y = conv_bn(b, y, planes, 3, 1, 1, "conv2", "bn2", frozen);
  return b.relu(b.add(y, shortcut(b, x, planes, stride, frozen), "add"), "relu2");
}

/// The stem and the four stages (what DETR's backbone keeps: torchvision's IntermediateLayerGetter
/// up to layer4): [N, 3, H, W] -> [N, 512 (basic) or 2048, H/32, W/32], rounded as the convs round.
/// `basic`: ResNet-34's basic blocks, else bottlenecks.
inline Value resnet_features(GraphBuilder<>& b, Value x, ResNetConfig const& c, bool basic = false) {
  x = b.relu(conv_bn(b, x, 64, 7, 2, 1, "conv1", "bn1", c.frozen_batch_norm), "relu");
  x = b.max_pool(x, {3, 3}, {.stride = {2, 2}, .pad = pad2(1, 1)}, "maxpool");
  constexpr std::array<std::int64_t, 4> planes{64, 128, 256, 512};
  for (std::size_t stage = 0; stage < 4; ++stage)
    for (int i = 0; i < c.blocks[stage]; ++i) {
      auto s = b.scope("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      std::int64_t stride = i == 0 && stage > 0 ? 2 : 1;
      x = basic ? basic_block(b, x, planes[stage], stride, c.frozen_batch_norm) : bottleneck(b, x, planes[stage], stride, c);
    }
  return x;
}

inline Graph<> resnet(std::string const& model, ResNetConfig const& c, ModelOptions const& o, bool basic = false) {
  std::int64_t n = batch_of(o, model);
  std::int64_t side = resolution_of(o, model, 224, 1);
  auto b = builder_for(o);
  Value x = resnet_features(b, b.input("image", {n, 3, side, side}, o.dtype), c, basic);
  x = flatten(b, b.global_avg_pool(x, "avgpool"));
  Value logits = b.linear(x, c.num_classes, true, Activation::none, "fc");
  return finish(std::move(b), {logits}, o);
}

}  // namespace detail

/// ResNet-34, input [batch, 3, 224, 224] by default (the MetaFlow paper's ResNet34).
inline Graph<> resnet34(ModelOptions const& o = {}) { return detail::resnet("resnet34", {}, o, true); }

/// ResNet-50, input [batch, 3, 224, 224] by default.
inline Graph<> resnet50(ModelOptions const& o = {}) { return detail::resnet("resnet50", {}, o); }

/// ResNeXt-50 (32x4d): ResNet-50 with grouped 3x3 convolutions, 32 groups of width 4 (x stage).
inline Graph<> resnext50_32x4d(ModelOptions const& o = {}) {
  return detail::resnet("resnext50_32x4d", {.groups = 32, .width_per_group = 4}, o);
}

}  // namespace autograph::models
