// A project outside autograph linking autograph::defaults: the default rule engine and the
// verification of a built-in rule come from the installed library (the headers declare them
// extern), and they find and verify a conv+relu fusion.
#include <autograph/rules/default_engine.hpp>
#include <autograph/rules/default_verification.hpp>
#include <autograph/graph/builder.hpp>

#include <cstdio>

#ifndef AUTOGRAPH_PRECOMPILED
#error "linking autograph::defaults must define AUTOGRAPH_PRECOMPILED (its interface definition)"
#endif

int main() {
  using namespace autograph;
  GraphBuilder b;
  auto x = b.input("x", {1, 3, 8, 8});
  auto y = b.relu(b.conv2d(x, 4, {3, 3}));
  auto g = std::move(b).build({y});
  rules::DefaultEngine engine;
  bool fused = false;
  for (auto const& f : engine.find_matches(g))
    if (engine.name(f.rule) == "fuse-conv-relu") fused = engine.apply(g, f).has_value();
  auto verified = rules::verify_rules<BuiltinOps>(rules::Default{}, {});
  bool all_pass = !verified.empty() && rules::summarize(verified).failed == 0;
  std::printf("consumer_defaults: %zu rules, conv+relu fused: %s, %zu rules verified: %s\n", engine.size(), fused ? "yes" : "NO",
              verified.size(), all_pass ? "none failed" : "SOME FAILED");
  return fused && all_pass ? 0 : 1;
}
