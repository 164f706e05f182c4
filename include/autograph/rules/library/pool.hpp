#pragma once
// avgpool(a) + avgpool(b) => avgpool(a + b): average pooling is linear, and both windows use one
// divisor (NasNet's cells add two average-pooled branches).
#include "autograph/rules/library/common.hpp"

namespace autograph::rules {

struct AvgPoolAdd : PatternRule<AvgPoolAdd> {
  static constexpr std::string_view name = "avgpool-add";
  template <class Set>
  static Pattern<Set> source() {
    PatternBuilder<Set> p;
    Var a = p.var(), b = p.var();
    auto avg = [](Pool2D const& q) { return q.kind == PoolKind::avg ? ok : no_match("max pooling is not linear"); };
    auto pa = p.op(is<Pool2D>, {a}).when(avg);
    auto pb = p.op(is<Pool2D>, {b}).when(avg);
    auto sum = p.op(is<Add>, {pa, pb});
    p.output(sum);
    p.check([](Graph<Set> const& g, Match const& m) {
      if (!(g[m.node(0)].op == g[m.node(1)].op)) return no_match("the poolings differ");
      return g.desc(m.var(0)) == g.desc(m.var(1)) ? ok : no_match("the pooled inputs differ in shape");
    });
    return std::move(p).build();
  }
  template <class Set>
  static Target apply(Rewriter<Set>& rw, Match const& m) {
    auto const& g = rw.graph();
    std::string n = detail::derived_name(g, m.node(2), "pooled_sum");
    Value s = rw.add(Add{}, {m.var(0), m.var(1)}, n + ".sum");
    return {rw.add(g[m.node(0)].op, {s}, n)};
  }
  template <class Set>
  static Graph<Set> example(std::mt19937_64& rng) {
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
