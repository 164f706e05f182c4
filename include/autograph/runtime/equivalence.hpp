#pragma once
// Equivalence of two graphs on the reference executor: run both on the same random inputs and
// compare their outputs by the project's one criterion (runtime/compare_outputs.hpp). Rule
// verification (rules/verify.hpp), the search's check of an optimized graph (verify_equivalent()
// below, used by the baselines) and the rule tests all check equivalence this way.
//
// random_inputs() makes the inputs, compare_to_expected() runs one graph against outputs
// already computed (a rule's source, run once for many rewrites), compare_graphs() does both for
// a pair of graphs.
//
// verify_equivalent() checks an optimized graph against the original, and insists that the
// inputs exercise the model: agreement on an output that does not move with the inputs proves
// nothing (a ReLU over always-negative values, a saturated sigmoid, a softmax whose logits
// barely vary). It feeds inputs uniform in [-1, 1); an output of the original whose values all
// lie within what the comparison tolerates of each other (max - min <= tolerance · max(max |a|,
// floor)) carries no signal, so both graphs are run again on inputs uniform in [-16, 16) (a
// fresh seed; a weak input against large biases is the usual reason). An output still without
// signal across both input sets makes the verification fail: `passed` stays false,
// `constant_outputs` lists it and `why` says so. A single-element output is constant within one
// input set and judged across the two.
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "autograph/core/hash.hpp"
#include "autograph/runtime/compare_outputs.hpp"
#include "autograph/runtime/reference_executor.hpp"

namespace autograph {

/// Random inputs for the Input nodes of `g`, bound by their labels: node `id` gets values uniform
/// in [-scale, scale) drawn from seed hash_combine(seed, id), so one graph and seed always give
/// the same inputs.
template <class Set>
std::map<std::string, Tensor> random_inputs(Graph<Set> const& g, std::uint64_t seed, float scale = 1.f) {
  std::map<std::string, Tensor> inputs;
  for (NodeId id : g.inputs())
    inputs.emplace(g[id].template get_if<Input>()->label, Tensor::random(g[id].outputs[0].shape, hash_combine(seed, id), -scale, scale));
  return inputs;
}

/// Runs `candidate` on `inputs` and compares its outputs with `expected`, the original's on the
/// same inputs (expected_outputs()). Throws what the executor throws when `candidate` does not run.
template <class Set>
OutputComparison compare_to_expected(ExpectedOutputs const& expected, Graph<Set> const& candidate, std::map<std::string, Tensor> const& inputs,
                                     double tolerance, ReferenceExecutor<Set> const& ex = {}) {
  auto got = ex.run(candidate, inputs);
  return compare_outputs(expected.values, got, tolerance, expected.floors, expected.labels);
}

/// `original` and `candidate` on the same random inputs (random_inputs(original, seed)), compared
/// output by output. Both must carry weight data.
template <class Set>
OutputComparison compare_graphs(Graph<Set> const& original, Graph<Set> const& candidate, double tolerance, std::uint64_t seed) {
  ReferenceExecutor<Set> ex;
  auto inputs = random_inputs(original, seed);
  return compare_to_expected(expected_outputs(original, inputs, ex), candidate, inputs, tolerance, ex);
}

/// Agreement of an optimized graph with the original on the reference executor.
struct Verification {
  bool ran = false;  // false: not checked (and `why` says why)
  bool passed = false;
  double max_rel_error = 0;  // the largest normwise relative error of an output (compare_outputs.hpp)
  std::string why;
  std::vector<std::size_t> constant_outputs = {};  // outputs without signal for every input set (then passed is false)
};

/// Runs `optimized` and `original` on the same random inputs, twice where an output shows no
/// signal (see the file comment); both must carry weight data.
template <class Set>
Verification verify_equivalent(Graph<Set> const& original, Graph<Set> const& optimized, double tolerance, std::uint64_t seed) {
  Verification v;
  ReferenceExecutor<Set> ex;
  auto outs = original.outputs();
  std::vector<double> lo(outs.size(), INFINITY), hi(outs.size(), -INFINITY), scale(outs.size(), 0), floor(outs.size(), 0);
  // Runs both graphs on inputs uniform in [-s, s); false (with `why`) when they disagree.
  auto check = [&](float s, std::uint64_t input_seed) {
    auto inputs = random_inputs(original, input_seed, s);
    auto want = expected_outputs(original, inputs, ex);
    auto c = compare_to_expected(want, optimized, inputs, tolerance, ex);
    v.ran = true;
    v.max_rel_error = std::max(v.max_rel_error, c.error);
    if (!c.passed) {
      v.why = c.why + " (inputs uniform in [-" + detail::format_g(s) + ", " + detail::format_g(s) + "))";
      return false;
    }
    for (std::size_t o = 0; o < outs.size(); ++o) {
      for (float x : want.values[o].data())
        if (std::isfinite(x)) lo[o] = std::min(lo[o], double(x)), hi[o] = std::max(hi[o], double(x));
      scale[o] = std::max(scale[o], max_finite_magnitude(want.values[o]));
      floor[o] = std::max(floor[o], want.floors[o]);
    }
    return true;
  };
  auto without_signal = [&] {
    std::vector<std::size_t> r;
    for (std::size_t o = 0; o < outs.size(); ++o)
      if (!(hi[o] - lo[o] > tolerance * std::max(scale[o], floor[o]))) r.push_back(o);  // also when no value is finite
    return r;
  };
  try {
    // Before any input exists: a graph too large for this machine is an error that names its
    // largest tensor, not a std::bad_alloc while making random inputs.
    ex.check_memory(original, /*inputs_allocated=*/false);
    if (!check(1.f, seed)) return v;
    if (!without_signal().empty() && !check(16.f, hash_combine(seed, 16))) return v;
  } catch (Error const& e) {
    v.why = e.what();
    v.passed = false;
    if (!v.ran) return v;
    // The second input set did not run: the outputs without signal stay unverified.
    v.why = "inputs uniform in [-16, 16) do not run (" + v.why + ")";
  }
  v.constant_outputs = without_signal();
  v.passed = v.constant_outputs.empty() && v.why.empty();
  if (!v.constant_outputs.empty()) {
    std::string list;
    for (std::size_t o : v.constant_outputs)
      list += (list.empty() ? "" : ", ") + detail::output_name(o, original.label(outs[o].node)) + " (values in [" + detail::format_g(lo[o]) + ", " +
              detail::format_g(hi[o]) + "])";
    v.why = list + (v.constant_outputs.size() == 1 ? " does" : " do") +
            " not vary with the verifier's inputs beyond the tolerance (uniform in [-1, 1) and [-16, 16)): agreement there proves nothing" +
            (v.why.empty() ? "" : "; " + v.why);
  }
  return v;
}

}  // namespace autograph
