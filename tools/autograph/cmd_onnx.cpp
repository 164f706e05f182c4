// ONNX in and out:
//
//   autograph import model.onnx --input x=1x3x224x224 [--dot graph.dot]   summary of the imported graph
//   autograph run model.onnx --input x=1x3x224x224 [--seed 1]             run on the reference executor
//   autograph export-model resnet50 -o resnet50.onnx [--batch 1]           write a zoo model as ONNX
//
// --input fixes an input's shape (required for inputs with dynamic dimensions); give it once
// per input. Dimensions are separated by 'x' or ','.
#include <autograph/graph/stats.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/io/onnx/importer.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace {

using namespace autograph;

/// "images=1x3x224x224" -> {"images", [1,3,224,224]}.
std::pair<std::string, Shape> parse_input(std::string const& spec) {
  auto eq = spec.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    throw Error("--input '" + spec + "': expected NAME=DIMS, e.g. images=1x3x224x224");
  std::vector<std::int64_t> dims;
  std::string dim;
  auto flush = [&] {
    std::size_t used = 0;
    long long v = -1;
    try {
      v = std::stoll(dim, &used);
    } catch (std::exception const&) {
    }
    if (dim.empty() || used != dim.size() || v < 0) throw Error("--input '" + spec + "': '" + dim + "' is not a dimension");
    dims.push_back(v);
    dim.clear();
  };
  for (char ch : spec.substr(eq + 1)) {
    if (ch == 'x' || ch == 'X' || ch == ',') flush();
    else dim += ch;
  }
  flush();
  if (dims.size() > Shape::max_rank) throw Error("--input '" + spec + "': at most 8 dimensions");
  return {spec.substr(0, eq), Shape(dims)};
}

struct ImportArgs {
  std::string model;
  std::vector<std::string> inputs;
  std::string dot;
  std::uint64_t seed = 1;
};

void add_import_options(CLI::App& app, ImportArgs& a) {
  app.add_option("model", a.model, "ONNX model file")->required()->check(CLI::ExistingFile);
  app.add_option("--input", a.inputs, "Fix an input's shape: NAME=DIMS, e.g. images=1x3x224x224 (repeat per input)");
}

ImportedOnnxModel load(ImportArgs const& a) {
  OnnxImportOptions opt;
  for (auto const& spec : a.inputs) {
    auto [name, shape] = parse_input(spec);
    if (!opt.input_shapes.emplace(name, shape).second) throw Error("--input '" + name + "' is given twice");
  }
  return import_onnx(a.model, opt);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void print_counts(std::string const& title, std::map<std::string, std::size_t> const& counts) {
  std::size_t total = 0;
  for (auto const& [op, n] : counts) total += n;
  std::cout << title << " (" << total << "):\n";
  for (auto const& [op, n] : counts) std::cout << "  " << op << std::string(op.size() < 22 ? 22 - op.size() : 1, ' ') << n << "\n";
}

void print_summary(ImportedOnnxModel const& m, std::string const& file) {
  auto const& g = m.graph;
  std::cout << file << ": ONNX IR " << m.ir_version << ", opset " << m.opset << (m.producer.empty() ? "" : ", from " + m.producer) << "\n";
  for (NodeId id : g.inputs()) {
    auto const& in = *g[id].get_if<Input>();
    std::cout << "  input  " << in.label << " " << in.desc.to_string() << "\n";
  }
  for (std::size_t i = 0; i < g.outputs().size(); ++i) std::cout << "  output " << m.output_names[i] << " " << g.desc(g.outputs()[i]).to_string() << "\n";
  print_counts("ONNX nodes by type", m.onnx_ops);
  std::map<std::string, std::size_t> ops;
  for (NodeId id : g.node_ids())
    if (!g[id].op.is_source()) ++ops[std::string(g[id].op_name())];
  print_counts("graph operators by type", ops);
  GraphStats s = graph_stats(g);
  std::cout << "stats:\n"
            << "  folded at import " << m.folded << " ONNX nodes\n"
            << "  operators        " << s.operators << "\n"
            << "  edges            " << s.edges << "\n"
            << "  parameters       " << s.parameters << " weight elements\n"
            << "  MACs             " << fixed(s.macs / 1e9, 4) << " G\n"
            << "  FLOPs            " << fixed(s.flops / 1e9, 4) << " G\n"
            << "  width            " << s.width << "\n"
            << "  critical path    " << s.critical_path << " operators\n";
}

cli::Register import_cmd{{"import", "Import an ONNX model and summarise the graph", [](CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  add_import_options(app, *a);
  app.add_option("--dot", a->dot, "Also write the graph as Graphviz DOT to this file");
  return [a] {
    auto m = load(*a);
    print_summary(m, a->model);
    if (!a->dot.empty()) {
      std::ofstream out(a->dot);
      if (!out) throw Error("cannot write " + a->dot);
      write_dot(out, m.graph, {.title = a->model});
      std::cout << "wrote " << a->dot << "\n";
    }
    return 0;
  };
}}};

cli::Register run_cmd{{"run", "Run an ONNX model on the reference executor with random inputs", [](CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  add_import_options(app, *a);
  app.add_option("--seed", a->seed, "Seed of the random inputs (uniform in [-1, 1))");
  return [a] {
    auto m = load(*a);
    std::map<std::string, Tensor> inputs;
    std::uint64_t k = a->seed;
    for (NodeId id : m.graph.inputs()) {
      auto const& in = *m.graph[id].get_if<Input>();
      inputs.emplace(in.label, Tensor::random(in.desc.shape, k++));
      std::cout << "input  " << in.label << " " << in.desc.shape.to_string() << " random (seed " << k - 1 << ")\n";
    }
    auto start = std::chrono::steady_clock::now();
    auto out = ReferenceExecutor<>{}.run(m.graph, inputs);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    for (std::size_t i = 0; i < out.size(); ++i) {
      double sum = 0, abs = 0;
      std::size_t bad = 0;
      for (float v : out[i].data()) {
        if (!std::isfinite(v)) ++bad;
        sum += v;
        abs += std::fabs(v);
      }
      std::cout << "output " << m.output_names[i] << " " << out[i].shape().to_string() << " sum " << fixed(sum, 6) << " mean|x| "
                << fixed(out[i].numel() ? abs / static_cast<double>(out[i].numel()) : 0.0, 6)
                << (bad ? " (" + std::to_string(bad) + " non-finite)" : std::string{}) << "\n";
    }
    std::cout << "ran " << graph_stats(m.graph).operators << " operators in " << fixed(ms, 1) << " ms\n";
    return 0;
  };
}}};

struct ExportArgs {
  std::string name, out;
  std::int64_t batch = 0, resolution = 0;
  std::uint64_t weight_seed = 0;
};

cli::Register export_cmd{{"export-model", "Write a model of the zoo (autograph models) as ONNX, with random weights", [](CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  app.add_option("name", a->name, "Model name (see `autograph models`)")->required();
  app.add_option("-o,--output", a->out, "ONNX file to write")->required();
  app.add_option("--batch", a->batch, "Batch size (default: the benchmark's)")->check(CLI::PositiveNumber);
  app.add_option("--resolution", a->resolution, "Image side for the CNNs and ViT (default: the published one)")->check(CLI::PositiveNumber);
  app.add_option("--weight-seed", a->weight_seed, "Seed of the random weights");
  return [a] {
    models::ModelOptions mo{.weight_seed = a->weight_seed};
    if (a->batch > 0) mo.batch = a->batch;
    if (a->resolution > 0) mo.resolution = a->resolution;
    auto const& info = models::model_info(a->name);
    Graph<> g = info.build(mo);
    export_onnx(g, a->out, {.graph_name = a->name, .doc = std::string(info.description)});
    GraphStats s = graph_stats(g);
    std::cout << "wrote " << a->out << ": " << a->name << ", " << s.operators << " operators, " << s.parameters << " weight elements\n";
    for (NodeId id : g.inputs()) {
      auto const& in = *g[id].get_if<Input>();
      std::cout << "  input " << in.label << " " << in.desc.to_string() << "\n";
    }
    return 0;
  };
}}};

}  // namespace
