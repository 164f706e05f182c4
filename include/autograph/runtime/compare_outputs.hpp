#pragma once
// The one criterion by which the project decides that two computations of a graph's outputs
// agree (an optimized graph against the original, a rewritten rule example against its
// source): normwise relative error per output, with an absolute floor tied to float32.
//
//   error(o) = max_i |a_i - b_i| / max(max_i |a_i|, floor(o))      passes when <= tolerance
//
// Why normwise (one scale per output, not per element): float32 reassociation errors scale with
// the magnitudes that flow through the network, not with each element. NasNet-A Large with
// random weights has outputs near 1e7, and folding its BatchNorms alone moves an element of 3e3
// by 4.5 (1.4e-3 of that element, 5e-7 of the output's scale). A wrong rewrite moves outputs by
// a sizeable fraction of their scale.
//
// Why a floor, and why not 1.0: the scale of an output is its own largest magnitude, however
// small — probabilities of a softmax over thousands of classes, sigmoid maps of a detector
// (<= 6e-4 on a real exported text detector), are the common case, and a floor of 1.0 (an
// absolute 1e-3 test below 1) passed an all-zero output there. The floor only matters for an
// output that is small because of cancellation: a sum of operands of size M that nearly cancel
// carries rounding noise of a few ulps of M (~ n·eps·M for n roundings, eps = 2^-23), however
// small the result. So the floor is the largest magnitude that flowed into the output's last
// operation (its operands, and the output itself; not every value upstream, which would give a
// detector's sigmoid map the scale of its backbone) times 2^13·eps = 2^-10: an output entirely
// below a thousandth of its operands keeps at most 13 of float32's 24 bits, and at tolerance 1e-3
// the floor admits noise of 2^-10 · 1e-3 · M ≈ 8 ulps of M. The price is paid by outputs that
// are small because their last op compresses (sigmoid, softmax), where errors stay relative:
// when the operands exceed the output a thousandfold, the floor exceeds the output and the test
// becomes absolute, 1e-3 · 2^-10 · M. Sigmoid scores below 6e-4 from logits near -9 (floor 9e-3)
// still fail when all zero (error 0.04) or wrong by more than ~2%. Erring the other way (a floor
// too low for some deep cancellation) fails a correct graph and says so: safe, where passing a
// wrong one is not.
//
// Non-finite values: an element that is NaN in both, or the same infinity in both, agrees; any
// other disagreement in finiteness (NaN against a number, +inf against -inf) fails and names
// the output and the element. Finite elements are compared as above.
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph {

/// The floor of an output whose last operation read values up to `magnitude` (see the file
/// comment): 2^13 float32 epsilons of it, 2^-10 · magnitude.
inline double noise_floor(double magnitude) { return 0x1p13 * double(std::numeric_limits<float>::epsilon()) * magnitude; }

/// Largest |x| over the finite elements of `t` (0 when there are none).
inline double max_finite_magnitude(Tensor const& t) {
  double m = 0;
  for (float x : t.data())
    if (std::isfinite(x)) m = std::max(m, double(std::fabs(x)));
  return m;
}

/// The outcome of comparing outputs: which output decided it, its error and the tolerance.
struct OutputComparison {
  bool passed = true;
  std::size_t output = 0;  // the failing output, or the one with the largest error when all pass
  double error = 0;        // normwise relative error of that output (+inf for a shape or finiteness mismatch)
  double tolerance = 0;
  double floor = 0;        // that output's floor
  std::string why;         // empty when passed
};

namespace detail {
inline std::string format_g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}
inline std::string output_name(std::size_t index, std::string const& label) {
  return "output " + std::to_string(index) + (label.empty() ? "" : " (" + label + ")");
}
}  // namespace detail

/// Compares `got` with `expected` (the truth) for output `index` (named `label` in messages).
inline OutputComparison compare_output(Tensor const& expected, Tensor const& got, double tolerance, double floor, std::size_t index = 0,
                                       std::string const& label = {}) {
  OutputComparison c{.passed = true, .output = index, .error = 0, .tolerance = tolerance, .floor = floor, .why = {}};
  std::string name = detail::output_name(index, label);
  auto fail = [&](std::string why) {
    c.passed = false;
    c.error = INFINITY;
    c.why = name + ": " + std::move(why);
    return c;
  };
  if (expected.shape() != got.shape()) return fail("shapes differ: " + expected.shape().to_string() + " vs " + got.shape().to_string());
  auto a = expected.data(), b = got.data();
  double diff = 0, scale = 0;
  std::size_t worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!std::isfinite(a[i]) || !std::isfinite(b[i])) {
      bool same = (std::isnan(a[i]) && std::isnan(b[i])) || a[i] == b[i];
      if (!same) return fail("element " + std::to_string(i) + " is " + detail::format_g(a[i]) + " in the expected output and " + detail::format_g(b[i]) + " in the other");
      continue;
    }
    double d = std::fabs(double(a[i]) - double(b[i]));
    if (d > diff) diff = d, worst = i;
    scale = std::max(scale, double(std::fabs(a[i])));
  }
  double denominator = std::max(scale, floor);
  c.error = diff == 0 ? 0 : denominator > 0 ? diff / denominator : INFINITY;
  c.passed = c.error <= tolerance;
  if (!c.passed)
    c.why = name + ": normwise relative error " + detail::format_g(c.error) + " exceeds the tolerance " + detail::format_g(tolerance) + " (max |a - b| " +
            detail::format_g(diff) + " at element " + std::to_string(worst) + "; scale max(max |a| " + detail::format_g(scale) + ", floor " +
            detail::format_g(floor) + "))";
  return c;
}

/// Compares every output (`floors` and `labels` per output; `labels` may be empty). Reports the
/// first failing output, or the largest error when all pass.
inline OutputComparison compare_outputs(std::span<Tensor const> expected, std::span<Tensor const> got, double tolerance, std::span<double const> floors,
                                        std::span<std::string const> labels = {}) {
  if (expected.size() != got.size())
    return {.passed = false, .output = 0, .error = INFINITY, .tolerance = tolerance, .floor = 0,
            .why = "output counts differ (" + std::to_string(expected.size()) + " vs " + std::to_string(got.size()) + ")"};
  if (floors.size() != expected.size())
    throw Error("compare_outputs: " + std::to_string(floors.size()) + " floors for " + std::to_string(expected.size()) + " outputs");
  OutputComparison worst{.passed = true, .output = 0, .error = 0, .tolerance = tolerance, .floor = floors.empty() ? 0 : floors[0], .why = {}};
  for (std::size_t o = 0; o < expected.size(); ++o) {
    auto c = compare_output(expected[o], got[o], tolerance, floors[o], o, o < labels.size() ? labels[o] : std::string());
    if (!c.passed) return c;
    if (c.error > worst.error) worst = c;
  }
  return worst;
}

/// A graph's outputs on the reference executor with each output's floor: the largest magnitude
/// its last operation read (the operands of the node that produces it) or wrote (the output).
struct ExpectedOutputs {
  std::vector<Tensor> values;
  std::vector<double> floors;
  std::vector<std::string> labels;  // the producing nodes' labels ("Softmax 'probs'"), for messages
};

/// Runs `g` once, with the operands of every output's producer as extra outputs of a copy of the
/// graph (the executor frees everything else as it goes).
template <class Set>
ExpectedOutputs expected_outputs(Graph<Set> const& g, std::map<std::string, Tensor> const& inputs, ReferenceExecutor<Set> const& ex = {}) {
  auto outs = g.outputs();
  Graph<Set> probe = g;
  std::vector<Value> probed(outs.begin(), outs.end());
  std::vector<std::vector<std::size_t>> operands(outs.size());  // positions in `probed`
  for (std::size_t o = 0; o < outs.size(); ++o)
    for (Value v : g[outs[o].node].inputs) {
      auto at = std::ranges::find(probed, v);
      operands[o].push_back(static_cast<std::size_t>(at - probed.begin()));
      if (at == probed.end()) probed.push_back(v);
    }
  probe.set_outputs(probed);
  auto all = ex.run(probe, inputs);
  ExpectedOutputs r;
  for (std::size_t o = 0; o < outs.size(); ++o) {
    double m = max_finite_magnitude(all[o]);
    for (std::size_t k : operands[o]) m = std::max(m, max_finite_magnitude(all[k]));
    r.values.push_back(all[o]);
    r.floors.push_back(noise_floor(m));
    r.labels.push_back(g.label(outs[o].node));
  }
  return r;
}

}  // namespace autograph
