// ONNX in and out:
//
//   autograph import model.onnx --input x=1x3x224x224 [--dot graph.dot]   summary of the imported graph
//   autograph run model.onnx --input x=1x3x224x224 [--seed 1]             run on the reference executor
//   autograph export-model resnet50 -o resnet50.onnx [--batch 1]           write a zoo model as ONNX
//
// --input fixes an input's shape (required for inputs with dynamic dimensions); give it once
// per input. Dimensions are separated by 'x' or ',' (tools/autograph/shape_arg.hpp).
#include <autograph/graph/stats.hpp>
#include <autograph/io/dot.hpp>
#include <autograph/io/onnx/exporter.hpp>
#include <autograph/io/onnx/importer.hpp>
#include <autograph/models/zoo.hpp>
#include <autograph/runtime/reference_executor.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"
#include "output_file.hpp"
#include "shape_arg.hpp"

namespace {

using namespace autograph;

struct ImportArgs {
  std::string model;
  std::vector<std::string> inputs;
  cli::OutputFile dot{"--dot"};
  std::uint64_t seed = 1;
};

/// Operators (nodes that run a kernel), counted without graph_stats(): that also computes the
/// graph's width, quadratic in the operators, which a count does not need.
std::size_t operator_count(Graph<> const& g) {
  return static_cast<std::size_t>(std::ranges::count_if(g.node_ids(), [&](NodeId id) { return is_operator_node(g, id); }));
}

void add_import_options(CLI::App& app, ImportArgs& a) {
  app.add_option("model", a.model, "ONNX model file")->required()->check(CLI::ExistingFile);
  app.add_option("--input", a.inputs, "Fix an input's shape: NAME=DIMS, e.g. images=1x3x224x224 (repeat per input)");
}

ImportedOnnxModel load(ImportArgs const& a) { return import_onnx(a.model, {.input_shapes = cli::parse_input_shapes(a.inputs)}); }

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
            << "  MACs             " << cli::fixed(s.macs / 1e9, 4) << " G\n"
            << "  FLOPs            " << cli::fixed(s.flops / 1e9, 4) << " G\n"
            << "  width            " << s.width << "\n"
            << "  critical path    " << s.critical_path << " operators\n";
}

cli::Register import_cmd{{"import", "Import an ONNX model and summarise the graph", [](CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  add_import_options(app, *a);
  cli::add_output_option(app, "--dot", a->dot, "Also write the graph as Graphviz DOT to this file");
  return [a] {
    a->dot.check();
    auto m = load(*a);
    print_summary(m, a->model);
    if (a->dot.wanted()) {
      a->dot.write([&](std::ostream& out) { write_dot(out, m.graph, {.title = a->model}); });
      std::cout << "wrote " << a->dot.path << "\n";
    }
    return 0;
  };
}}};

cli::Register run_cmd{{"run", "Run an ONNX model on the reference executor with random inputs", [](CLI::App& app) {
  auto a = std::make_shared<ImportArgs>();
  add_import_options(app, *a);
  app.add_option("--seed", a->seed, "Seed of the random inputs (uniform in [-1, 1))")->check(cli::seed_value);
  return [a] {
    auto m = load(*a);
    // Before the random inputs exist: an input too large for this machine is a clear error
    // naming the tensor, not a std::bad_alloc while filling it.
    ReferenceExecutor<>{}.check_memory(m.graph, /*inputs_allocated=*/false);
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
      std::cout << "output " << m.output_names[i] << " " << out[i].shape().to_string() << " sum " << cli::fixed(sum, 6) << " mean|x| "
                << cli::fixed(out[i].numel() ? abs / static_cast<double>(out[i].numel()) : 0.0, 6)
                << (bad ? " (" + std::to_string(bad) + " non-finite)" : std::string{}) << "\n";
    }
    std::cout << "ran " << operator_count(m.graph) << " operators in " << cli::fixed(ms, 1) << " ms\n";
    return 0;
  };
}}};

struct ExportArgs {
  std::string name;
  cli::OutputFile out{"-o"};
  std::int64_t batch = 0, resolution = 0;
  std::uint64_t weight_seed = 0;
};

cli::Register export_cmd{{"export-model", "Write a model of the zoo (autograph models) as ONNX, with random weights", [](CLI::App& app) {
  auto a = std::make_shared<ExportArgs>();
  app.add_option("name", a->name, "Model name (see `autograph models`)")->required();
  cli::add_output_option(app, "-o,--output", a->out, "ONNX file to write")->required();
  app.add_option("--batch", a->batch, "Batch size (default: the benchmark's)")->check(autograph::cli::positive_integer);
  app.add_option("--resolution", a->resolution, "Image side for the CNNs and ViT (default: the published one)")->check(autograph::cli::positive_integer);
  app.add_option("--weight-seed", a->weight_seed, "Seed of the random weights")->check(cli::seed_value);
  return [a] {
    a->out.check();
    models::ModelOptions mo{.weight_seed = a->weight_seed};
    if (a->batch > 0) mo.batch = a->batch;
    if (a->resolution > 0) mo.resolution = a->resolution;
    auto const& info = models::model_info(a->name);
    Graph<> g = info.build(mo);
    ::onnx::ModelProto model = export_onnx_model(g, {.graph_name = a->name, .doc = std::string(info.description)});
    a->out.write([&](std::ostream& out) {
      if (!model.SerializeToOstream(&out)) throw Error("cannot serialize the model (over 2 GiB?)");
    });
    std::int64_t weights = 0;
    for (NodeId id : g.node_ids())
      if (auto const* w = g[id].get_if<Weight>()) weights += w->desc.numel();
    std::cout << "wrote " << a->out.path << ": " << a->name << ", " << operator_count(g) << " operators, " << weights << " weight elements\n";
    for (NodeId id : g.inputs()) {
      auto const& in = *g[id].get_if<Input>();
      std::cout << "  input " << in.label << " " << in.desc.to_string() << "\n";
    }
    return 0;
  };
}}};

}  // namespace
