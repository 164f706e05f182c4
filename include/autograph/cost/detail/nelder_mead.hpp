#pragma once
// Nelder–Mead's simplex search (Nelder & Mead 1965, with the usual coefficients: reflection 1,
// expansion 2, contraction 1/2, shrink 1/2): a minimum of a function of a few variables that
// needs no derivatives. The roofline fit (cost/roofline_fit.hpp) needs exactly that: its loss
// is a max() of roofs, so it has kinks where a kernel changes roof, and has only 2–4 variables.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <numeric>
#include <vector>

namespace autograph::detail {

struct NelderMeadResult {
  std::vector<double> x;
  double value = 0;
  std::size_t evaluations = 0;
};

/// A local minimum of `f` near `x0`, starting from a simplex of edge `step` along every axis.
/// Stops when the simplex's values differ by at most `tolerance` or after `max_evaluations`.
/// @pre x0 is not empty.
inline NelderMeadResult nelder_mead(std::function<double(std::vector<double> const&)> const& f, std::vector<double> x0, double step,
                                    double tolerance = 1e-14, std::size_t max_evaluations = 5000) {
  std::size_t n = x0.size();
  NelderMeadResult r;
  auto eval = [&](std::vector<double> const& x) {
    ++r.evaluations;
    return f(x);
  };
  std::vector<std::vector<double>> p(n + 1, x0);
  for (std::size_t i = 0; i < n; ++i) p[i + 1][i] += step;
  std::vector<double> v(n + 1);
  for (std::size_t i = 0; i <= n; ++i) v[i] = eval(p[i]);
  std::vector<std::size_t> order(n + 1);
  auto along = [&](std::vector<double> const& c, std::vector<double> const& worst, double t) {
    std::vector<double> x(n);
    for (std::size_t j = 0; j < n; ++j) x[j] = c[j] + t * (worst[j] - c[j]);
    return x;
  };
  while (r.evaluations < max_evaluations) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::ranges::sort(order, {}, [&](std::size_t i) { return v[i]; });
    std::size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (v[worst] - v[best] <= tolerance) break;
    std::vector<double> c(n, 0.0);  // the centroid of all but the worst
    for (std::size_t i = 0; i <= n; ++i)
      if (i != worst)
        for (std::size_t j = 0; j < n; ++j) c[j] += p[i][j] / static_cast<double>(n);
    auto xr = along(c, p[worst], -1.0);
    double vr = eval(xr);
    if (vr < v[best]) {
      auto xe = along(c, p[worst], -2.0);
      double ve = eval(xe);
      if (ve < vr) p[worst] = std::move(xe), v[worst] = ve;
      else p[worst] = std::move(xr), v[worst] = vr;
    } else if (vr < v[second]) {
      p[worst] = std::move(xr), v[worst] = vr;
    } else {
      // Contract towards the better of the worst point and its reflection.
      bool outside = vr < v[worst];
      auto xc = along(c, outside ? xr : p[worst], 0.5);
      double vc = eval(xc);
      if (vc < std::min(vr, v[worst])) {
        p[worst] = std::move(xc), v[worst] = vc;
      } else {
        for (std::size_t i = 0; i <= n; ++i)
          if (i != best) {
            for (std::size_t j = 0; j < n; ++j) p[i][j] = p[best][j] + 0.5 * (p[i][j] - p[best][j]);
            v[i] = eval(p[i]);
          }
      }
    }
  }
  std::size_t best = static_cast<std::size_t>(std::ranges::min_element(v) - v.begin());
  r.x = p[best];
  r.value = v[best];
  return r;
}

}  // namespace autograph::detail
