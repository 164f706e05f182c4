// The importer on mutated and truncated real models: it must import them or throw
// autograph::Error, never crash or throw anything else (run under ASan/UBSan in CI). The
// libFuzzer target fuzz/onnx_import_fuzz.cpp explores further; this replays a fixed,
// seeded set of mutations of the ONNX test suite's models and of exported models;
// AUTOGRAPH_FUZZ_SCALE=N replays N times as many (scripts/fuzz.sh runs the libFuzzer target).
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "../../fuzz/onnx_import_fuzz.hpp"
#include "autograph/graph/builder.hpp"
#include "autograph/graph/weights.hpp"
#include "autograph/io/onnx/exporter.hpp"

namespace autograph {
namespace {

namespace fs = std::filesystem;

/// Real models: a spread of node tests, PyTorch exports, and an exported built network.
std::vector<std::string> seeds() {
  std::vector<std::string> out;
  fs::path data = "/usr/share/libonnx-testdata/data";
  for (char const* dir : {"test_conv_with_strides_padding", "test_convtranspose_pads", "test_resize_upsample_scales_cubic",
                          "test_gemm_all_attributes", "test_layer_normalization_4d_axis1_expanded", "test_softmax_axis_1_expanded",
                          "test_slice", "test_split_variable_parts_2d", "test_reshape_reordered_all_dims", "test_maxpool_2d_same_upper",
                          "test_batchnorm_epsilon", "test_clip_splitbounds", "test_range_float_type_positive_delta", "test_gather_2d_indices",
                          "test_unsqueeze_two_axes", "test_pad", "test_expand_dim_changed", "test_constantofshape_float_ones"}) {
    fs::path p = data / "node" / dir / "model.onnx";
    if (fs::exists(p)) out.push_back(onnx_detail::read_file_bytes(p));
  }
  for (char const* dir : {"test_Conv2d_depthwise_padded", "test_ConvTranspose2d", "test_Linear", "test_BatchNorm2d_eval"}) {
    fs::path p = data / "pytorch-converted" / dir / "model.onnx";
    if (fs::exists(p)) out.push_back(onnx_detail::read_file_bytes(p));
  }
  GraphBuilder b;
  Value x = b.input("x", {1, 3, 8, 8});
  Value c = b.batch_norm(b.conv2d(x, 4, {3, 3}, {.act = Activation::relu}));
  Value y = b.softmax(b.linear(b.reshape(b.global_avg_pool(c), {1, -1}), 3));
  auto g = std::move(b).build({y});
  fill_random_weights(g, 1);
  out.push_back(export_onnx_model(g).SerializeAsString());
  return out;
}

/// Structure-aware mutations: change one field of a parsed model to something hostile.
std::string mutate_structure(std::string const& bytes, std::mt19937_64& rng) {
  ::onnx::ModelProto m;
  if (!m.ParseFromString(bytes)) return bytes;
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(std::max(n, 1))); };
  static constexpr std::int64_t hostile[] = {0, -1, 1, 2, 7, -7, 1 << 20, std::int64_t{1} << 40, std::numeric_limits<std::int64_t>::max(),
                                             std::numeric_limits<std::int64_t>::min()};
  auto value = [&] { return hostile[rng() % std::size(hostile)]; };
  auto* g = m.mutable_graph();
  auto ops = supported_onnx_ops();
  switch (rng() % 8) {
    case 0:  // an attribute int or ints entry
      if (g->node_size() && g->node(0).attribute_size() >= 0) {
        auto* n = g->mutable_node(pick(g->node_size()));
        if (n->attribute_size()) {
          auto* a = n->mutable_attribute(pick(n->attribute_size()));
          if (a->ints_size()) a->set_ints(pick(a->ints_size()), value());
          else a->set_i(value());
        }
      }
      break;
    case 1:  // a node's op type replaced by another the importer claims
      if (g->node_size()) {
        auto it = ops.begin();
        std::advance(it, pick(static_cast<int>(ops.size())));
        g->mutable_node(pick(g->node_size()))->set_op_type(it->first);
      }
      break;
    case 2:  // an initializer's dims
      if (g->initializer_size()) {
        auto* t = g->mutable_initializer(pick(g->initializer_size()));
        if (t->dims_size()) t->set_dims(pick(t->dims_size()), value());
        else t->add_dims(value());
      }
      break;
    case 3:  // an input dimension
      if (g->input_size()) {
        auto* s = g->mutable_input(pick(g->input_size()))->mutable_type()->mutable_tensor_type()->mutable_shape();
        if (s->dim_size()) s->mutable_dim(pick(s->dim_size()))->set_dim_value(value());
      }
      break;
    case 4:  // a node input rewired or dropped
      if (g->node_size()) {
        auto* n = g->mutable_node(pick(g->node_size()));
        if (n->input_size() && rng() % 2) n->set_input(pick(n->input_size()), rng() % 2 ? "" : g->node(pick(g->node_size())).output(0));
        else n->add_input(g->input_size() ? g->input(0).name() : "x");
      }
      break;
    case 5:  // nodes reordered
      if (g->node_size() > 1) g->mutable_node()->SwapElements(pick(g->node_size()), pick(g->node_size()));
      break;
    case 6:  // an int64 initializer's values (shapes, axes, pads)
      for (auto& t : *g->mutable_initializer())
        if (t.data_type() == ::onnx::TensorProto::INT64 && t.int64_data_size()) t.set_int64_data(pick(t.int64_data_size()), value());
        else if (t.data_type() == ::onnx::TensorProto::INT64 && t.raw_data().size() >= 8) {
          std::int64_t v = value();
          std::string raw = t.raw_data();
          std::memcpy(raw.data() + 8 * pick(static_cast<int>(raw.size() / 8)), &v, 8);
          t.set_raw_data(raw);
        }
      break;
    default:  // the opset
      if (m.opset_import_size()) m.mutable_opset_import(0)->set_version(value() % 25);
      break;
  }
  return m.SerializeAsString();
}

/// Byte-level mutations: flips, overwrites, insertions, deletions.
std::string mutate_bytes(std::string s, std::mt19937_64& rng) {
  if (s.empty()) return s;
  auto at = [&] { return static_cast<std::size_t>(rng() % s.size()); };
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    switch (rng() % 4) {
      case 0: s[at()] ^= static_cast<char>(1 << (rng() % 8)); break;
      case 1: s[at()] = static_cast<char>(rng() % 2 ? 0xff : 0x00); break;
      case 2: s.insert(at(), 1 + rng() % 4, static_cast<char>(rng())); break;
      default: {
        std::size_t from = at();
        s.erase(from, std::min<std::size_t>(1 + rng() % 16, s.size() - from));
      }
    }
  }
  return s;
}

/// How many times the default amount of fuzzing to do: AUTOGRAPH_FUZZ_SCALE (default 1), so a
/// CI job or a developer can run longer than the few seconds the test suite spends here.
int fuzz_scale() {
  char const* text = std::getenv("AUTOGRAPH_FUZZ_SCALE");
  if (!text || !*text) return 1;
  int scale = 0;
  auto [end, ec] = std::from_chars(text, text + std::strlen(text), scale);
  if (ec != std::errc{} || *end != '\0' || scale < 1 || scale > 100000)
    throw std::invalid_argument(std::string("AUTOGRAPH_FUZZ_SCALE='") + text + "': expected a whole number from 1 to 100000");
  return scale;
}

TEST(OnnxFuzz, TruncatedModelsAreErrorsNotCrashes) {
  auto models = seeds();
  ASSERT_FALSE(models.empty());
  std::size_t tried = 0, cuts = 64 * static_cast<std::size_t>(fuzz_scale());
  for (auto const& m : models) {
    // Every prefix length for small models, 64 (times the scale) spread cuts for larger ones.
    std::size_t step = std::max<std::size_t>(1, m.size() / cuts);
    for (std::size_t n = 0; n < m.size(); n += step, ++tried) ASSERT_NO_THROW(fuzz::import_onnx(std::string_view(m).substr(0, n))) << n;
  }
  EXPECT_GT(tried, 500u);
}

TEST(OnnxFuzz, MutatedModelsAreErrorsNotCrashes) {
  auto models = seeds();
  std::mt19937_64 rng(20240611);
  std::size_t imported = 0, tried = 0;
  int mutations = 150 * fuzz_scale();  // the first 150 are the same at every scale
  for (auto const& m : models)
    for (int i = 0; i < mutations; ++i, ++tried) {
      std::string mutated = i % 2 ? mutate_bytes(m, rng) : mutate_structure(m, rng);
      if (i % 5 == 0) mutated = mutate_structure(mutate_structure(mutated, rng), rng);
      bool ok = false;
      ASSERT_NO_THROW(ok = fuzz::import_onnx(mutated)) << "model " << &m - models.data() << " mutation " << i;
      imported += ok;
    }
  // Most mutations must be rejected, and some still import: both paths were exercised.
  EXPECT_GT(imported, 0u);
  EXPECT_LT(imported, tried);
}

}  // namespace
}  // namespace autograph
