#pragma once
// The Backend concept (Collage §3): a backend is a small type that says what it can run —
// patterns and pattern rules over the graph's operator types — and whether it can run one
// group it matched (a shape its library rejects, say). How it builds a kernel for a group is
// the runtime's rung of the ladder (cpu/backends/: CpuBackend adds build()), so the placement
// layer depends on no runtime.
//
//   struct MyBackend {
//     static constexpr std::string_view name = "my-backend";
//     template <class Set> void declare(BackendSpec<Set>& spec) const { spec.add(rule); spec.add("conv-relu", pattern); }
//     template <class Set> rules::Status can_run(Graph<Set> const& g, NodeGroup const& group) const { return rules::ok; }
//   };
#include <concepts>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/placement/candidate.hpp"
#include "autograph/placement/pattern.hpp"
#include "autograph/placement/pattern_rule.hpp"
#include "autograph/rules/status.hpp"

namespace autograph::placement {

/// What a backend declares: its patterns (Method 1) and pattern rules (Method 2).
template <class Set>
class BackendSpec {
 public:
  struct NamedPattern {
    std::string name;
    Pattern<Set> pattern;
  };
  void add(std::string name, Pattern<Set> pattern) { patterns_.push_back({std::move(name), std::move(pattern)}); }
  void add(PatternRule<Set> rule) {
    if (!rule.valid_op || !rule.fusion) throw Error("pattern rule '" + rule.name + "': valid_op and fusion must both be set");
    if (rule.max_size == 0) throw Error("pattern rule '" + rule.name + "': max_size must be at least 1");
    rules_.push_back(std::move(rule));
  }
  std::span<NamedPattern const> patterns() const { return patterns_; }
  std::span<PatternRule<Set> const> rules() const { return rules_; }

 private:
  std::vector<NamedPattern> patterns_;
  std::vector<PatternRule<Set>> rules_;
};

template <class B, class Set = BuiltinOps>
concept Backend = std::default_initializable<B> && requires(B const& b, BackendSpec<Set>& spec, Graph<Set> const& g, NodeGroup const& group) {
  { B::name } -> std::convertible_to<std::string_view>;
  b.declare(spec);
  { b.can_run(g, group) } -> std::convertible_to<rules::Status>;
};

}  // namespace autograph::placement
