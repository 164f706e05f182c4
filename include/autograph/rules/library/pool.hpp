#pragma once
// avgpool(a) + avgpool(b) => avgpool(a + b): average pooling is linear, and both windows use one
// divisor (NasNet's cells add two average-pooled branches).
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

inline namespace library {
using namespace dsl;

struct AvgPoolAdd : Rewrite<AvgPoolAdd, "avgpool-add"> {
  static constexpr auto avg = [](Pool2D const& q) { return to_status(q.kind == PoolKind::avg, "max pooling is not linear"); };
  static constexpr auto pa = pool2d(a).when(avg);
  static constexpr auto pb = pool2d(b).when(avg);
  static constexpr auto from = add(pa, pb).check([](auto const& m) {
    if (!(m.graph()[m.node(pa)].op == m.graph()[m.node(pb)].op)) return no_match("the poolings differ");
    return to_status(m.desc(a) == m.desc(b), "the pooled inputs differ in shape");
  });
  static constexpr auto to = pa.with(add(a, b));
};

}  // namespace library

template <>
struct RuleExample<AvgPoolAdd> {
  template <class Set>
  static Graph<Set> make(std::mt19937_64& rng) {
    GraphBuilder<Set> b;
    Shape s{detail::pick(rng, {1, 2}), 3, detail::pick(rng, {5, 6}), 7};
    auto x = b.input("a", s), y = b.input("b", s);
    std::int64_t k = detail::pick(rng, {1, 3});
    PoolOptions o{.stride = {detail::pick(rng, {1, 2}), 1}, .pad = {k / 2, k / 2, k / 2, k / 2}, .count_include_pad = detail::coin(rng)};
    bool global = detail::coin(rng) && detail::coin(rng);
    Value pa = global ? b.global_avg_pool(x) : b.avg_pool(x, {k, k}, o);
    Value pb = global ? b.global_avg_pool(b.relu(y)) : b.avg_pool(b.relu(y), {k, k}, o);
    return std::move(b).build({b.add(pa, pb)});
  }
};

}  // namespace autograph::rules
