#pragma once
// NASNet-A (Zoph et al., "Learning Transferable Architectures for Scalable Image Recognition")
// as the TF-slim reference builds it for ImageNet (research/slim/nets/nasnet: nasnet.py and
// nasnet_utils.py; Cadene's pretrainedmodels NASNetALarge/NASNetAMobile are ports of it):
//
//   conv0 3x3/2 VALID (32 * stem_multiplier filters) + BN
//   cell_stem_0, cell_stem_1: reduction cells at 1/4 and 1/2 of the filters
//   3 stages of num_cells/3 normal cells; a reduction cell (x2 filters) before stages 2 and 3
//   ReLU, global average pool, (dropout), fully connected 1000
//
// A cell reads two hidden states: h0 = BN(conv1x1(ReLU(current))) and h1 = the previous cell's
// output, adjusted to h0's shape ("_reduce_prev_layer": a factorized reduction when the grid
// differs, ReLU + 1x1 conv + BN when only the filters differ). Five combinations each add two
// operations on chosen states; the unused states are concatenated. The cells are data below,
// exactly TF-slim's operation lists and hidden-state indices:
//   separable kxk: (ReLU -> depthwise kxk -> pointwise 1x1 -> BN) twice, the stride on the first
//   avg/max pool 3x3 (SAME; average pools exclude the padding), identity ("none")
// A stride applies only to operations reading the cell's inputs (h0, h1). Padding is TF's
// "SAME", which is asymmetric for stride 2 (the extra row/column goes bottom/right); Conv2D and
// Pool2D take {top, left, bottom, right} padding, so no pad/crop ops are needed for it.
// Factorized reduction: path 1 = avg-pool 1x1/2 + 1x1 conv (out/2); path 2 = the input shifted
// one pixel up-left (pad bottom/right by 1, slice off the first row/column) + avg-pool 1x1/2 +
// 1x1 conv (out/2); concat, BN. BatchNorm eps 0.001 everywhere; convs have no bias.
//
// NASNet-A Large (6 @ 4032): 18 normal cells, 168 filters, stem multiplier 3, each normal cell
// after a reduction reads the cell before the reduction's input (skip_reduction_layer_input).
// NASNet-A Mobile (4 @ 1056): 12 normal cells, 44 filters, stem multiplier 1.
// The paper's Large runs at 331x331; the default here is 224 (ModelOptions::resolution to change).
// The auxiliary head runs only in training and is left out; drop-path is a training-only op.
// Published: Large 88.9 M parameters (23.8 G MACs at 331); Mobile 5.3 M parameters, 564 M MACs.
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "autograph/models/model_options.hpp"

namespace autograph::models {

struct NasNetConfig {
  std::int64_t num_cells = 18;         // normal cells, in three equal stages
  std::int64_t num_conv_filters = 168; // filters of a first-stage cell's operations
  double stem_multiplier = 3.0;        // conv0 has 32 * stem_multiplier filters
  bool skip_reduction_layer_input = true;
  std::int64_t num_classes = 1000;
};

inline constexpr NasNetConfig nasnet_a_large_config{.num_cells = 18, .num_conv_filters = 168, .stem_multiplier = 3.0,
                                                    .skip_reduction_layer_input = true};
inline constexpr NasNetConfig nasnet_a_mobile_config{.num_cells = 12, .num_conv_filters = 44, .stem_multiplier = 1.0,
                                                     .skip_reduction_layer_input = false};

namespace detail {

/// TF "SAME" padding {before, after} of one dimension of size n for kernel k and stride s:
/// the output has ceil(n / s) positions and the odd padding element goes after.
inline std::array<std::int64_t, 2> tf_same_padding(std::int64_t n, std::int64_t k, std::int64_t s) {
  std::int64_t out = (n + s - 1) / s;
  std::int64_t total = std::max<std::int64_t>((out - 1) * s + k - n, 0);
  return {total / 2, total - total / 2};
}
/// {top, left, bottom, right} "SAME" padding of an NCHW tensor for a square kernel.
inline std::array<std::int64_t, 4> tf_same_pad(Shape const& x, std::int64_t k, std::int64_t s) {
  auto h = tf_same_padding(x[2], k, s), w = tf_same_padding(x[3], k, s);
  return {h[0], w[0], h[1], w[1]};
}

enum class NasOp : std::uint8_t { sep3x3, sep5x5, sep7x7, avg3x3, max3x3, none };

/// A NASNet cell as TF-slim writes it: five combinations, each (left, right) operation reading
/// hidden state inputs[i] (0: h0, 1: h1, 2 + j: combination j); `used` marks the states
/// consumed inside the cell, the others are concatenated into the output.
struct NasCell {
  std::array<NasOp, 10> ops;
  std::array<int, 10> inputs;
  std::array<bool, 7> used;
};

inline constexpr NasCell nasnet_a_normal_cell{
    {NasOp::sep5x5, NasOp::sep3x3, NasOp::sep5x5, NasOp::sep3x3, NasOp::avg3x3, NasOp::none, NasOp::avg3x3, NasOp::avg3x3,
     NasOp::sep3x3, NasOp::none},
    {0, 1, 1, 1, 0, 1, 1, 1, 0, 0},
    {true, false, false, false, false, false, false}};
inline constexpr NasCell nasnet_a_reduction_cell{
    {NasOp::sep5x5, NasOp::sep7x7, NasOp::max3x3, NasOp::sep7x7, NasOp::avg3x3, NasOp::sep5x5, NasOp::none, NasOp::avg3x3,
     NasOp::sep3x3, NasOp::max3x3},
    {0, 1, 0, 1, 0, 1, 3, 2, 2, 0},
    {true, true, true, false, false, false, false}};

class NasNetBuilder {
 public:
  explicit NasNetBuilder(GraphBuilder<>& b) : b_(b) {}

  /// One cell with `filters` per operation; `prev` is the previous cell's output (none for the
  /// first stem cell).
  Value cell(NasCell const& spec, Value net, std::optional<Value> prev, std::int64_t filters, std::int64_t stride) {
    filters_ = filters;
    Value h1 = reduce_prev_layer(prev, net);
    Value h0 = bn(b_.conv2d(b_.relu(net, "relu"), filters, {1, 1}, {.pad = pad2(0, 0)}, "1x1"), "beginning_bn");
    std::vector<Value> h{h0, h1};
    for (std::size_t i = 0; i < 5; ++i) {
      auto s = b_.scope("comb_iter_" + std::to_string(i));
      auto side = [&](std::size_t j, std::string const& name) {
        auto sc = b_.scope(name);
        int in = spec.inputs[j];
        return apply(spec.ops[j], h[static_cast<std::size_t>(in)], in < 2 ? stride : 1);
      };
      Value left = side(2 * i, "left");
      Value right = side(2 * i + 1, "right");
      h.push_back(b_.add(left, right, "combine"));
    }
    auto s = b_.scope("cell_output");
    Shape const final_shape = b_.shape(h.back());
    std::vector<Value> out;
    for (std::size_t i = 0; i < h.size(); ++i) {
      if (spec.used[i]) continue;
      Shape const& hs = b_.shape(h[i]);
      if (hs[1] != final_shape[1] || hs[2] != final_shape[2]) {
        auto r = b_.scope("reduction_" + std::to_string(i));
        h[i] = factorized_reduction(h[i], final_shape[1], hs[2] != final_shape[2] ? 2 : 1);
      }
      out.push_back(h[i]);
    }
    return b_.concat(out, 1, "concat");
  }

  Value bn(Value x, std::string const& name) { return b_.batch_norm(x, 0.001f, name); }

 private:
  /// The previous layer made to match the current one (TF-slim _reduce_prev_layer).
  Value reduce_prev_layer(std::optional<Value> prev, Value curr) {
    if (!prev) return curr;
    Shape const& p = b_.shape(*prev);
    if (p[2] != b_.shape(curr)[2]) return factorized_reduction(b_.relu(*prev, "prev_relu"), filters_, 2);
    if (p[1] != filters_) return bn(b_.conv2d(b_.relu(*prev, "prev_relu"), filters_, {1, 1}, {.pad = pad2(0, 0)}, "prev_1x1"), "prev_bn");
    return *prev;
  }

  /// Reduces the grid by `stride` without losing information to striding (TF-slim factorized_reduction).
  Value factorized_reduction(Value x, std::int64_t out, std::int64_t stride) {
    ConvOptions one{.pad = pad2(0, 0)};
    if (stride == 1) return bn(b_.conv2d(x, out, {1, 1}, one, "path_conv"), "path_bn");
    PoolOptions subsample{.stride = {stride, stride}};
    Value path1 = b_.conv2d(b_.avg_pool(x, {1, 1}, subsample, "path1_avgpool"), out / 2, {1, 1}, one, "path1_conv");
    Value shifted = b_.add(Pad{{0, 0, 0, 0, 0, 0, 1, 1}}, {x}, "path2_pad");
    constexpr std::int64_t end = std::numeric_limits<std::int64_t>::max();
    shifted = b_.add(Slice{{2, 3}, {1, 1}, {end, end}, {}}, {shifted}, "path2_shift");
    Value path2 = b_.conv2d(b_.avg_pool(shifted, {1, 1}, subsample, "path2_avgpool"), out / 2 + out % 2, {1, 1}, one, "path2_conv");
    return bn(b_.concat({path1, path2}, 1, "path_concat"), "final_path_bn");
  }

  /// One separable conv: depthwise kxk (stride, SAME) then pointwise 1x1 to `out`.
  Value separable(Value x, std::int64_t out, std::int64_t k, std::int64_t stride, std::string const& name) {
    auto s = b_.scope(name);
    std::int64_t c = b_.shape(x)[1];
    Value d = b_.conv2d(x, c, {k, k}, {.stride = {stride, stride}, .pad = tf_same_pad(b_.shape(x), k, stride), .groups = c}, "depthwise");
    return b_.conv2d(d, out, {1, 1}, {.pad = pad2(0, 0)}, "pointwise");
  }

  Value apply(NasOp op, Value x, std::int64_t stride) {
    using enum NasOp;
    std::int64_t c = b_.shape(x)[1];
    switch (op) {
      case sep3x3:
      case sep5x5:
      case sep7x7: {
        std::int64_t k = op == sep3x3 ? 3 : op == sep5x5 ? 5 : 7;
        std::string kk = std::to_string(k) + "x" + std::to_string(k);
        Value y = separable(b_.relu(x, "relu_1"), filters_, k, stride, "separable_" + kk + "_1");
        y = bn(y, "bn_sep_" + kk + "_1");
        y = separable(b_.relu(y, "relu_2"), filters_, k, 1, "separable_" + kk + "_2");
        return bn(y, "bn_sep_" + kk + "_2");
      }
      case avg3x3:
      case max3x3: {
        PoolOptions p{.stride = {stride, stride}, .pad = tf_same_pad(b_.shape(x), 3, stride), .count_include_pad = false};
        Value y = op == avg3x3 ? b_.avg_pool(x, {3, 3}, p, "avg_pool_3x3") : b_.max_pool(x, {3, 3}, p, "max_pool_3x3");
        if (c != filters_) y = bn(b_.conv2d(y, filters_, {1, 1}, {.pad = pad2(0, 0)}, "1x1"), "bn_1");
        return y;
      }
      case none:
        if (stride > 1 || c != filters_)
          return bn(b_.conv2d(b_.relu(x, "relu"), filters_, {1, 1}, {.stride = {stride, stride}, .pad = pad2(0, 0)}, "1x1"), "bn_1");
        return x;
    }
    return x;
  }

  GraphBuilder<>& b_;
  std::int64_t filters_ = 0;
};

}  // namespace detail

/// NASNet-A for ImageNet with the given configuration; input [batch, 3, side, side] (224 by
/// default), output [batch, num_classes] logits.
inline Graph<> nasnet_a(NasNetConfig const& c, ModelOptions const& o = {}, std::string const& model = "nasnet_a") {
  using namespace detail;
  std::int64_t n = batch_of(o, model);
  std::int64_t side = resolution_of(o, model, 224, 3);
  if (c.num_cells < 3 || c.num_cells % 3 != 0) throw Error(model + ": num_cells must be a positive multiple of 3");
  auto b = builder_for(o);
  NasNetBuilder m(b);
  Value x = b.input("image", {n, 3, side, side}, o.dtype);
  auto stem_filters = static_cast<std::int64_t>(32 * c.stem_multiplier);
  Value net = m.bn(b.conv2d(x, stem_filters, {3, 3}, {.stride = {2, 2}, .pad = pad2(0, 0)}, "conv0"), "conv0_bn");

  std::vector<std::optional<Value>> outputs{std::nullopt, net};
  auto filters = [&](double scaling) { return static_cast<std::int64_t>(static_cast<double>(c.num_conv_filters) * scaling); };
  double scaling = 0.25;  // 1 / filter_scaling_rate^(number of stem cells)
  for (int i = 0; i < 2; ++i) {
    auto s = b.scope("cell_stem_" + std::to_string(i));
    net = m.cell(nasnet_a_reduction_cell, net, outputs[outputs.size() - 2], filters(scaling), 2);
    outputs.emplace_back(net);
    scaling *= 2;
  }
  std::int64_t const reductions[] = {c.num_cells / 3, 2 * c.num_cells / 3};
  scaling = 1.0;
  std::optional<Value> prev;
  for (std::int64_t cell = 0; cell < c.num_cells; ++cell) {
    if (c.skip_reduction_layer_input) prev = outputs[outputs.size() - 2];
    for (int r = 0; r < 2; ++r)
      if (cell == reductions[r]) {
        scaling *= 2;
        auto s = b.scope("reduction_cell_" + std::to_string(r));
        net = m.cell(nasnet_a_reduction_cell, net, outputs[outputs.size() - 2], filters(scaling), 2);
        outputs.emplace_back(net);
      }
    if (!c.skip_reduction_layer_input) prev = outputs[outputs.size() - 2];
    auto s = b.scope("cell_" + std::to_string(cell));
    net = m.cell(nasnet_a_normal_cell, net, prev, filters(scaling), 1);
    outputs.emplace_back(net);
  }
  net = flatten(b, b.global_avg_pool(b.relu(net, "final_relu"), "global_pool"));
  Value logits = b.linear(net, c.num_classes, true, Activation::none, "logits");
  return finish(std::move(b), {logits}, o);
}

/// NASNet-A Large (6 @ 4032): 18 normal + 2 reduction cells (+ 2 stem cells).
inline Graph<> nasnet_a_large(ModelOptions const& o = {}) { return nasnet_a(nasnet_a_large_config, o, "nasnet_a_large"); }

/// NASNet-A Mobile (4 @ 1056): 12 normal + 2 reduction cells (+ 2 stem cells).
inline Graph<> nasnet_a_mobile(ModelOptions const& o = {}) { return nasnet_a(nasnet_a_mobile_config, o, "nasnet_a_mobile"); }

}  // namespace autograph::models
