#pragma once
// Which rewrites made a graph: a persistent list (each candidate shares its parent's trail),
// so recording costs one node per rewrite, not a copy per candidate.
#include <map>
#include <memory>
#include <string>

namespace autograph {

class RewriteTrail {
 public:
  RewriteTrail() = default;
  /// This trail plus one application of `rule`.
  RewriteTrail then(std::string rule) const { return RewriteTrail(std::make_shared<Link const>(Link{std::move(rule), head_})); }
  /// This trail followed by every rewrite of `other`.
  RewriteTrail then(RewriteTrail const& other) const {
    std::vector<std::string const*> rules;
    for (auto l = other.head_.get(); l; l = l->parent.get()) rules.push_back(&l->rule);
    RewriteTrail t = *this;
    for (auto it = rules.rbegin(); it != rules.rend(); ++it) t = t.then(**it);
    return t;
  }
  /// Applications per rule name.
  std::map<std::string, std::size_t> counts() const {
    std::map<std::string, std::size_t> c;
    for (auto l = head_.get(); l; l = l->parent.get()) ++c[l->rule];
    return c;
  }
  std::size_t size() const {
    std::size_t n = 0;
    for (auto l = head_.get(); l; l = l->parent.get()) ++n;
    return n;
  }

 private:
  struct Link {
    std::string rule;
    std::shared_ptr<Link const> parent;
  };
  explicit RewriteTrail(std::shared_ptr<Link const> h) : head_(std::move(h)) {}
  std::shared_ptr<Link const> head_;
};

}  // namespace autograph
