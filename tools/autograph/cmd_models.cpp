// `autograph models`: the model zoo with each model's statistics.
//
//   autograph models                     aligned table of every model
//   autograph models --json              the same as JSON
//   autograph models inception_v3        one model in detail (published figures beside ours)
//   autograph models --batch 8 --resolution 331 nasnet_a_large
#include <autograph/graph/stats.hpp>
#include <autograph/models/zoo.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.hpp"

namespace {

using namespace autograph;

struct ModelsOptions {
  std::string name;
  bool json = false;
  std::int64_t batch = 0;       // 0: the model's default
  std::int64_t resolution = 0;  // 0: the model's default
  std::uint64_t seed = 0;
};

struct Row {
  models::ModelInfo const* info;
  std::string input;
  std::size_t all_nodes;
  GraphStats stats;
};

Row measure(models::ModelInfo const& m, ModelsOptions const& o) {
  models::ModelOptions mo{.seed = o.seed};
  if (o.batch > 0) mo.batch = o.batch;
  if (o.resolution > 0) mo.resolution = o.resolution;
  Graph<> g = m.build(mo);
  std::string input;
  for (NodeId id : g.inputs()) input += (input.empty() ? "" : " ") + g[id].outputs[0].shape.to_string();
  return {&m, input, g.num_nodes(), graph_stats(g)};
}

/// 25557032 -> "25,557,032".
std::string grouped(std::int64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > (n < 0 ? 1 : 0); i -= 3) s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

nlohmann::json to_json(Row const& r) {
  auto const& s = r.stats;
  return {{"name", r.info->name},
          {"description", r.info->description},
          {"input", r.input},
          {"nodes", s.operators},
          {"all_nodes", r.all_nodes},
          {"edges", s.edges},
          {"parameters", s.trainable_parameters},
          {"weight_elements", s.parameters},
          {"macs", s.macs},
          {"flops", s.flops},
          {"width", s.width},
          {"critical_path", s.critical_path},
          {"published_parameters", r.info->published_parameters},
          {"published_macs", r.info->published_macs},
          {"reference", r.info->reference}};
}

void print_table(std::vector<Row> const& rows) {
  std::vector<std::vector<std::string>> cells{{"model", "input", "nodes", "edges", "parameters", "GMACs", "width", "critical path"}};
  for (auto const& r : rows)
    cells.push_back({std::string(r.info->name), r.input, std::to_string(r.stats.operators), std::to_string(r.stats.edges),
                     grouped(r.stats.trainable_parameters), cli::fixed(r.stats.macs / 1e9, 3), std::to_string(r.stats.width),
                     std::to_string(r.stats.critical_path)});
  std::vector<std::size_t> w(cells[0].size(), 0);
  for (auto const& row : cells)
    for (std::size_t c = 0; c < row.size(); ++c) w[c] = std::max(w[c], row[c].size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    std::string line;
    for (std::size_t c = 0; c < cells[i].size(); ++c) {
      std::string const& v = cells[i][c];
      std::string pad(w[c] - v.size(), ' ');
      line += (c ? "  " : "") + (c < 2 ? v + pad : pad + v);  // names left-aligned, numbers right-aligned
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::cout << line << "\n";
    if (i == 0) {
      std::size_t total = 0;
      for (auto x : w) total += x + 2;
      std::cout << std::string(total - 2, '-') << "\n";
    }
  }
  std::cout << "nodes: operators that run a kernel; edges: between them; parameters: trainable (no buffers, no BatchNorm running "
               "statistics);\nwidth: most operators with no path between any two; critical path: operators on the longest path\n";
}

void print_detail(Row const& r) {
  auto const& s = r.stats;
  auto vs = [](double ours, double published, std::string const& shown) {
    return published > 0 ? " (published " + shown + ", " + cli::fixed(100.0 * (ours / published - 1.0), 2) + "%)" : std::string{};
  };
  double params = static_cast<double>(s.trainable_parameters), pub_params = r.info->published_parameters;
  std::cout << r.info->name << ": " << r.info->description << "\n"
            << "  input           " << r.input << "\n"
            << "  nodes           " << s.operators << " operators (" << r.all_nodes << " with inputs and weights)\n"
            << "  edges           " << s.edges << "\n"
            << "  parameters      " << grouped(s.trainable_parameters)
            << vs(params, pub_params, grouped(static_cast<std::int64_t>(pub_params))) << "\n"
            << "  weight elements " << grouped(s.parameters) << " (with buffers and BatchNorm running statistics)\n"
            << "  MACs            " << cli::fixed(s.macs / 1e9, 4) << " G"
            << vs(s.macs, r.info->published_macs, cli::fixed(r.info->published_macs / 1e9, 3) + " G") << "\n"
            << "  FLOPs           " << cli::fixed(s.flops / 1e9, 4) << " G\n"
            << "  width           " << s.width << "\n"
            << "  critical path   " << s.critical_path << " operators\n"
            << "  reference       " << r.info->reference << "\n";
}

autograph::cli::Register models_cmd{{"models", "List the benchmark models with their statistics", [](CLI::App& app) {
  auto o = std::make_shared<ModelsOptions>();
  app.add_option("name", o->name, "Show one model (default: every model)");
  app.add_flag("--json", o->json, "Print JSON instead of a table");
  app.add_option("--batch", o->batch, "Batch size (default: the benchmark's)")->check(autograph::cli::positive_integer);
  app.add_option("--resolution", o->resolution, "Image side for the CNNs and ViT (default: the published one)")
      ->check(autograph::cli::positive_integer);
  app.add_option("--seed", o->seed, "RandWire wiring seed")->check(cli::seed_value);
  return [o] {
    std::vector<Row> rows;
    if (!o->name.empty()) {
      rows.push_back(measure(models::model_info(o->name), *o));
    } else {
      for (auto const& m : models::zoo()) rows.push_back(measure(m, *o));
    }
    if (o->json) {
      nlohmann::json j = nlohmann::json::array();
      for (auto const& r : rows) j.push_back(to_json(r));
      std::cout << (o->name.empty() ? j : j[0]).dump(2) << "\n";
    } else if (!o->name.empty()) {
      print_detail(rows[0]);
    } else {
      print_table(rows);
    }
    return 0;
  };
}}};

}  // namespace
