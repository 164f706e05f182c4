#pragma once
// Which rewrites made a graph: a persistent list (each candidate shares its parent's trail),
// so recording costs one node per rewrite, not a copy per candidate. Rules are numbers here
// (the RuleEngine's numbering); names are resolved only where a trail is reported.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace autograph {

/// A rule's number in its engine (RuleEngine::name(id) gives its name).
using RuleId = std::uint32_t;

class RewriteTrail {
 public:
  RewriteTrail() = default;
  /// This trail plus one application of `rule`.
  RewriteTrail then(RuleId rule) const { return RewriteTrail(std::make_shared<Link const>(Link{rule, head_})); }
  /// This trail followed by every rewrite of `other`.
  RewriteTrail then(RewriteTrail const& other) const {
    std::vector<RuleId> rules;
    for (auto l = other.head_.get(); l; l = l->parent.get()) rules.push_back(l->rule);
    RewriteTrail t = *this;
    for (auto it = rules.rbegin(); it != rules.rend(); ++it) t = t.then(*it);
    return t;
  }
  /// Applications per rule id.
  std::map<RuleId, std::size_t> id_counts() const {
    std::map<RuleId, std::size_t> c;
    for (auto l = head_.get(); l; l = l->parent.get()) ++c[l->rule];
    return c;
  }
  /// Applications per rule name; `name_of(id)` names a rule (e.g. the engine's `name`).
  template <class NameOf>
  std::map<std::string, std::size_t> counts(NameOf const& name_of) const {
    std::map<std::string, std::size_t> c;
    for (auto const& [id, n] : id_counts()) c[std::string(name_of(id))] += n;
    return c;
  }
  std::size_t size() const {
    std::size_t n = 0;
    for (auto l = head_.get(); l; l = l->parent.get()) ++n;
    return n;
  }

 private:
  struct Link {
    RuleId rule;
    std::shared_ptr<Link const> parent;
  };
  explicit RewriteTrail(std::shared_ptr<Link const> h) : head_(std::move(h)) {}
  std::shared_ptr<Link const> head_;
};

}  // namespace autograph
