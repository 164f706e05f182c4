#pragma once
// The model zoo: every benchmark network by name.
//
//   for (auto const& m : models::zoo()) std::cout << m.name << ": " << m.description << "\n";
//   Graph<> g = models::build("inception_v3", {.batch = 4});
//
// `published_parameters` / `published_macs` are the reference figures the sizes are checked
// against (0 where no reference publishes one; the tests derive those by hand).
// Parameters are counted as the frameworks count them: trainable weights, without buffers and
// BatchNorm running statistics (trainable_parameters() in graph/stats.hpp).
#include <span>
#include <string>
#include <string_view>

#include "autograph/models/bert.hpp"
#include "autograph/models/bert_encoder.hpp"
#include "autograph/models/detr.hpp"
#include "autograph/models/inception_v3.hpp"
#include "autograph/models/model_options.hpp"
#include "autograph/models/nasnet.hpp"
#include "autograph/models/randwire.hpp"
#include "autograph/models/resnet.hpp"
#include "autograph/models/rnntc_metaflow.hpp"
#include "autograph/models/rnntc_sru.hpp"
#include "autograph/models/setr.hpp"
#include "autograph/models/squeezenet.hpp"
#include "autograph/models/squeezenet_ios.hpp"
#include "autograph/models/vit.hpp"

namespace autograph::models {

struct ModelInfo {
  std::string_view name;
  std::string_view description;
  std::string_view input;             // the default input, as the benchmark used it
  Graph<> (*build)(ModelOptions const&);
  double published_parameters = 0;    // trainable parameters, 0: none published
  double published_macs = 0;          // multiply-accumulates at the default input, 0: none published
  std::string_view reference;         // where the published figures come from
  // Left out of the zoo-wide sweeps that fill every model's weights and run or export it (the
  // CPU, CUDA and ONNX round-trip tests, the GPU benchmark's default list): over 100 M parameters
  // (0.4 GB of float32 weights per copy), or a variant of a model the sweeps run already with no
  // operator the sweeps miss (detr_r50_e6 and _e12 are detr_r50_e3 with more encoder layers;
  // squeezenet_ios is squeezenet1_1's convs, pools and concats plus ResNets' Adds; rnntc_metaflow
  // is rnntc_sru's products, sigmoids, products and sums, with 63 M parameters;
  // inception_v3_ios and inception_v3_last_block are inception_v3 as IOS builds it, and a part of it). Each has tests
  // of its own in test/models/; building and counting (zoo_test, `autograph models`) still covers
  // every entry.
  bool skip_in_sweeps = false;
};

namespace detail {
/// The zoo's table; zoo() returns it.
inline std::span<ModelInfo const> zoo_table() {
  static constexpr ModelInfo all[] = {
      {"inception_v3", "Inception-v3: 11 Inception blocks with 1x7/7x1 and 1x3/3x1 factorized branches (torchvision layout)",
       "[1,3,299,299]", &inception_v3, 27161264 - 3326696, 5.71e9,
       "torchvision: 27,161,264 parameters with the training-only aux classifier (3,326,696), 5.71 GMACs"},
      {"inception_v3_ios", "Inception-v3 as IOS builds it (mit-han-lab/inter-operator-scheduler, inception_v3.py): E blocks concatenated flat, no classifier",
       "[1,3,299,299]", &inception_v3_ios, 0, 0, "derived (see test/models/inception_v3_test.cpp)", true},
      {"inception_v3_last_block", "Inception-v3's last block (Mixed_7c) alone on its 2048x8x8 input, as the IOS thesis schedules it (its Figure 4.7)",
       "[1,2048,8,8]", &inception_v3_last_block, 0, 0, "derived (see test/models/inception_v3_test.cpp)", true},
      {"resnet34", "ResNet-34: 16 basic blocks with downsample convs (torchvision)", "[1,3,224,224]", &resnet34, 21797672, 3.67e9,
       "torchvision: 21,797,672 parameters, 3.67 GMACs"},
      {"resnet50", "ResNet-50: 16 bottleneck blocks with downsample convs (torchvision)", "[1,3,224,224]", &resnet50, 25557032, 4.09e9,
       "torchvision: 25,557,032 parameters, 4.09 GMACs"},
      {"resnext50_32x4d", "ResNeXt-50 (32x4d): 16 bottleneck blocks with grouped 3x3 convs, 32 groups (torchvision)",
       "[1,3,224,224]", &resnext50_32x4d, 25028904, 4.23e9, "torchvision: 25,028,904 parameters, 4.23 GMACs"},
      {"nasnet_a_large", "NASNet-A Large (6 @ 4032): 2 stem + 18 normal + 2 reduction cells of separable convs and pools (TF-slim)",
       "[1,3,224,224]", &nasnet_a_large, 88.9e6, 0, "NASNet paper: 88.9 M parameters (23.8 G MACs at 331x331)"},
      {"nasnet_a_mobile", "NASNet-A Mobile (4 @ 1056): 2 stem + 12 normal + 2 reduction cells (TF-slim)", "[1,3,224,224]",
       &nasnet_a_mobile, 5.3e6, 564e6, "NASNet paper: 5.3 M parameters, 564 M MACs"},
      {"rnntc_sru", "RNNTC-SRU: one-hot embedding, one SRU layer unrolled over 10 steps (hidden 1024), softmax classifier",
       "[10,1,1024] one-hot", [](ModelOptions const& o) { return rnntc_sru(o); }, 0, 0, "derived (see rnntc_sru.hpp)"},
      {"rnntc_metaflow", "RNNTC as MetaFlow's code builds it (jiazhihao/metaflow_sysml19, sru.h): one SRU layer over 20 steps (width 1024), three weights of its own per step, no embedding or classifier",
       "[1,1,1024]", [](ModelOptions const& o) { return rnntc_metaflow(o); }, 0, 0, "derived from MetaFlow's code (see rnntc_metaflow.hpp): 62,914,560 parameters and MACs", true},
      {"bert", "BERT as TASO's examples/bert.py builds it (the AutoGraph paper's): 8 layers of Q/K/V matmuls, 16-head batched matmuls, no softmax, and an output matmul of the layer's input",
       "[64,1024]", [](ModelOptions const& o) { return bert(o); }, 0, 0, "derived (see bert.hpp)"},
      {"bert_encoder_8x1024", "BERT encoder: 8 post-LN layers, hidden 1024, 16 heads, FFN 4096, on 16 embedded sequences of 64 tokens (the zoo's bert until 2026-11-27)",
       "[16,64,1024]", [](ModelOptions const& o) { return bert_encoder(o); }, 0, 0, "derived (see bert_encoder.hpp)"},
      {"squeezenet1_1", "SqueezeNet 1.1: 8 fire modules, ceil-mode max pools (torchvision)", "[1,3,224,224]", &squeezenet1_1, 1235496,
       0.35e9, "torchvision: 1,235,496 parameters, 0.35 GMACs"},
      {"squeezenet_ios", "SqueezeNet as IOS builds it (mit-han-lab/inter-operator-scheduler, squeezenet.py): 7x7/96 stem, 8 fire modules each with a bypass add (a 1x1 conv where the channels change)",
       "[1,3,224,224]", &squeezenet_ios, 0, 0, "derived from IOS's code (see squeezenet_ios.hpp): 1,589,672 parameters, 1.19 GMACs", true},
      {"randwire_ws", "RandWire-WS small regime: C=78, three WS(32, 4, 0.75) random stages, seeded wiring", "[1,3,224,224]",
       &randwire_ws, 0, 0, "derived from the generated wiring (see the test)"},
      {"vit_b_16", "ViT-B/16: 12 pre-LN encoder blocks, 197 tokens, 768 wide (torchvision)", "[1,3,224,224]", &vit_b_16, 86567656,
       17.56e9, "torchvision: 86,567,656 parameters, 17.56 GMACs"},
      {"vit_l_16", "ViT-L/16: 24 pre-LN encoder blocks, 197 tokens, 1024 wide (torchvision)", "[1,3,224,224]", &vit_l_16, 304326632,
       61.55e9, "torchvision: 304,326,632 parameters, 61.55 GMACs (the AutoGTCO paper's Table I: 307.00 M, the ViT paper's rounded figure)", true},
      {"vit_h_14", "ViT-H/14: 32 pre-LN encoder blocks, 257 tokens, 1280 wide (torchvision)", "[1,3,224,224]", &vit_h_14, 632045800,
       167.29e9, "torchvision: 632,045,800 parameters, 167.29 GMACs (the AutoGTCO paper's Table I: 632.00 M)", true},
      {"detr_r50_e3", "DETR-ResNet50-E3: frozen-BN ResNet-50, 3 post-LN encoder and 6 decoder layers (256 wide, 8 heads), 100 queries (facebookresearch/detr)",
       "[1,3,800,1333]", &detr_r50_e3, 37.40e6, 0,
       "AutoGTCO paper, Table I: 37.40 M = DETR's trainable count 37,357,152 rounded to 0.1 M (the frozen stem and layer1, 222,400, are left out; see detr.hpp)"},
      {"detr_r50_e6", "DETR-ResNet50-E6: frozen-BN ResNet-50, 6 post-LN encoder and 6 decoder layers (256 wide, 8 heads), 100 queries (facebookresearch/detr detr_resnet50)",
       "[1,3,800,1333]", &detr_r50_e6, 41.30e6, 0,
       "AutoGTCO paper, Table I: 41.30 M = DETR's main.py 'number of params: 41302368' (the frozen stem and layer1, 222,400, are left out; see detr.hpp)", true},
      {"detr_r50_e12", "DETR-ResNet50-E12: frozen-BN ResNet-50, 12 post-LN encoder and 6 decoder layers (256 wide, 8 heads), 100 queries",
       "[1,3,800,1333]", &detr_r50_e12, 49.20e6, 0,
       "AutoGTCO paper, Table I: 49.20 M = DETR's trainable count 49,192,800 rounded to 0.1 M (the frozen stem and layer1, 222,400, are left out; see detr.hpp)", true},
      {"setr_naive_base", "SETR-Naive-Base: ViT-B/16 encoder (577 tokens at 384), naive head (1x1 convs, BN, ReLU, bilinear x16), 19 classes (fudan-zvg/SETR)",
       "[1,3,384,384]", &setr_naive_base, 87.69e6, 0, "AutoGTCO paper, Table I: 87.69 M (the SETR paper's 768x768 model; see setr.hpp)"},
      {"setr_naive", "SETR-Naive: ViT-L/16 encoder (577 tokens at 384), naive head (1x1 convs, BN, ReLU, bilinear x16), 19 classes (fudan-zvg/SETR)",
       "[1,3,384,384]", &setr_naive, 305.67e6, 0, "AutoGTCO paper, Table I: 305.67 M (the SETR paper's 768x768 model; see setr.hpp)", true},
      {"setr_pup", "SETR-PUP: ViT-L/16 encoder (577 tokens at 384), progressive upsampling head (4 x conv3x3, BN, ReLU, bilinear x2), 19 classes (fudan-zvg/SETR)",
       "[1,3,384,384]", &setr_pup, 310.57e6, 0, "AutoGTCO paper, Table I: 310.57 M (see setr.hpp)", true},
  };
  return all;
}
}  // namespace detail

/// Every model, in the order the papers list them.
#if defined(AUTOGRAPH_PRECOMPILED)
// Compiled once in src/defaults/model_zoo.cpp for the programs that link autograph::defaults:
// the table names every model's builder, so each file that called it compiled all of them
// (about 5 s of CPU per file).
std::span<ModelInfo const> zoo();
#else
inline std::span<ModelInfo const> zoo() { return detail::zoo_table(); }
#endif

/// The zoo entry called `name`, or null.
inline ModelInfo const* find_model(std::string_view name) {
  for (auto const& m : zoo())
    if (m.name == name) return &m;
  return nullptr;
}

/// The zoo entry called `name`. Throws Error listing the known names when there is none.
inline ModelInfo const& model_info(std::string_view name) {
  if (auto const* m = find_model(name)) return *m;
  std::string known;
  for (auto const& m : zoo()) known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw Error("no model called '" + std::string(name) + "' in the zoo; known models: " + known);
}

/// Builds the model called `name` (throws like model_info() for an unknown name).
inline Graph<> build(std::string_view name, ModelOptions const& o = {}) { return model_info(name).build(o); }

}  // namespace autograph::models
