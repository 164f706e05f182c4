// autograph verify-rules [--taso FILE]: checks every built-in rule (rules::Default and
// rules::TransformerFusion) numerically (rules/verify.hpp): random
// graphs containing a match, rewritten, run on the reference executor before and after.
#include <autograph/rules/default_verification.hpp>
#include <autograph/rules/taso_loader.hpp>

#include <iostream>
#include <memory>
#include <string>

#include "command.hpp"

namespace {

struct Options {
  std::string taso;
  int trials = 4;
  std::uint64_t seed = 1;
  bool strict_kernels = false;
  bool taso_semantics = false;
};

int report(std::vector<autograph::rules::VerifyResult> const& results) {
  for (auto const& r : results) std::cout << autograph::rules::to_string(r) << "\n";
  auto s = autograph::rules::summarize(results);
  std::cout << autograph::rules::to_string(s) << "\n";
  return s.failed == 0 ? 0 : 1;
}

autograph::cli::Register verify_rules_cmd{{"verify-rules", "Check every substitution rule numerically on random graphs", [](CLI::App& app) {
  auto o = std::make_shared<Options>();
  app.add_option("--taso", o->taso, "verify TASO's rule file (graph_subst.pb) instead of the built-in rules")->check(CLI::ExistingFile);
  app.add_option("--trials", o->trials, "random example graphs per rule")->check(CLI::Range(1, 1000));
  app.add_option("--seed", o->seed, "random seed")->check(autograph::cli::seed_value);
  app.add_flag("--strict-kernels", o->strict_kernels, "TASO rules: 3x3 kernels only (default: any kernel size, as TASO's loader)");
  app.add_flag("--as-taso", o->taso_semantics,
               "TASO rules: apply grouped-conv targets as TASO does, without checking that concat joins fall on group boundaries");
  return [o] {
    using namespace autograph;
    rules::VerifyOptions vo{.trials = o->trials, .seed = o->seed};
    if (o->taso.empty()) {
      // The default library, then the transformer fusions (rules::TransformerFusion, not in Default).
      auto results = rules::verify_rules<BuiltinOps>(rules::Default{}, vo);
      auto fusions = rules::verify_rules<BuiltinOps>(rules::TransformerFusion{}, vo);
      results.insert(results.end(), fusions.begin(), fusions.end());
      return report(results);
    }
    auto taso = rules::load_taso_rules(o->taso, {.any_kernel_size = !o->strict_kernels, .aligned_groups = !o->taso_semantics});
    std::cout << "loaded " << taso.size() << " rules from " << o->taso << "\n";
    auto results = rules::verify_rules<BuiltinOps>(std::span<rules::TasoRule<> const>(taso), vo);
    for (std::size_t i = 0; i < results.size(); ++i)
      if (results[i].verdict != rules::Verdict::verified) results[i].reason += "  [" + taso[i].describe() + "]";
    return report(results);
  };
}}};

}  // namespace
