// One full match pass of the whole rule set over each benchmark model: every match of every
// built-in rule and of TASO's 133 rules (when ../shared is present). Counters: matches found,
// and graph size. Target: under 5 ms per pass for BERT and NasNet-A.
#include <benchmark/benchmark.h>

#include <autograph/models/zoo.hpp>
#include <autograph/rules/default_engine.hpp>
#include <autograph/rules/taso_loader.hpp>

#include <filesystem>
#include <map>

namespace {
using namespace autograph;

std::vector<rules::TasoRule<>> taso_or_none() {
  auto file = std::filesystem::path(AUTOGRAPH_SHARED_DIR) / "data/taso/graph_subst.pb";
  if (!std::filesystem::exists(file)) return {};
  return rules::load_taso_rules(file);
}

Graph<> const& model(std::string_view name) {
  static std::map<std::string, Graph<>, std::less<>> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(std::string(name), models::build(name)).first;
  return it->second;
}

enum class Which { built_in, taso, all };

void match_pass(benchmark::State& state, std::string_view name, Which which) {
  static rules::DefaultEngine const all(taso_or_none());
  static rules::DefaultEngine const built_in;
  static rules::RuleEngine<BuiltinOps, rules::Rules<>> const taso(taso_or_none());
  Graph<> const& g = model(name);
  if (which != Which::built_in && all.size() == rules::Default::size) {
    state.SkipWithError("TASO's rule file (../shared/data/taso/graph_subst.pb) is absent");
    return;
  }
  std::size_t matches = 0;
  for (auto _ : state) {
    std::vector<rules::FoundMatch> found = which == Which::all        ? all.find_matches(g)
                                           : which == Which::built_in ? built_in.find_matches(g)
                                                                      : taso.find_matches(g);
    matches = found.size();
    benchmark::DoNotOptimize(found.data());
  }
  state.counters["matches"] = static_cast<double>(matches);
  state.counters["nodes"] = static_cast<double>(g.num_nodes());
}

int const registered = [] {
  for (auto const& m : models::zoo()) {
    std::string n(m.name);
    benchmark::RegisterBenchmark(("match_pass/all/" + n).c_str(), [n](benchmark::State& s) { match_pass(s, n, Which::all); })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("match_pass/built_in/" + n).c_str(), [n](benchmark::State& s) { match_pass(s, n, Which::built_in); })->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("match_pass/taso/" + n).c_str(), [n](benchmark::State& s) { match_pass(s, n, Which::taso); })->Unit(benchmark::kMillisecond);
  }
  return 0;
}();

}  // namespace
