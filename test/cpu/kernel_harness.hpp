#pragma once
// The harness of the CPU kernel tests: a node prepared by hand (Preparation), bound to buffers
// of its own as the runtime would lay them out, run, and compared with the reference kernel.
// The work that does not depend on the op is in plain functions, so that each op's case
// instantiates little (these tests cover every built-in op).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "autograph/cpu/ops.hpp"
#include "autograph/runtime/compare_outputs.hpp"
#include "autograph/runtime/cpu/kernels.hpp"

namespace autograph::cpu::testing {

/// A prepared, bound node over buffers it owns.
struct Prepared {
  Preparation prep;
  std::vector<std::vector<float>> in, out;
  std::vector<std::vector<float>> workspace;
  std::vector<Runner> runners;

  void run() {
    for (Runner const& r : runners) r();
  }
  std::vector<Tensor> outputs() const {
    std::vector<Tensor> t;
    for (std::size_t o = 0; o < out.size(); ++o) t.emplace_back(prep.outputs()[o].shape, out[o]);
    return t;
  }
};

using PrepareFn = std::function<void(Preparation&)>;

inline std::vector<TensorDesc> descs_of(std::vector<Tensor> const& in) {
  std::vector<TensorDesc> d;
  for (Tensor const& t : in) d.push_back({t.shape()});
  return d;
}

/// prepare -> bind (null pointers for empty tensors, as the runtime passes them); outputs
/// start as NaN so that an element no step writes shows.
inline std::unique_ptr<Prepared> bind_node(std::string label, std::vector<Tensor> const& in, std::vector<TensorDesc> out, std::vector<char> constant,
                                           int threads, PrepareFn const& prepare) {
  auto r = std::unique_ptr<Prepared>(new Prepared{Preparation(std::move(label), descs_of(in), std::move(out), std::move(constant), threads), {}, {}, {}, {}});
  prepare(r->prep);
  for (Tensor const& t : in) r->in.emplace_back(t.data().begin(), t.data().end());
  for (TensorDesc const& o : r->prep.outputs()) r->out.emplace_back(static_cast<std::size_t>(o.numel()), std::numeric_limits<float>::quiet_NaN());
  for (std::size_t bytes : r->prep.workspaces()) r->workspace.emplace_back((bytes + sizeof(float) - 1) / sizeof(float));
  std::vector<float const*> ip;
  std::vector<float*> op;
  std::vector<void*> wp;
  for (auto const& b : r->in) ip.push_back(b.empty() ? nullptr : b.data());
  for (auto& b : r->out) op.push_back(b.empty() ? nullptr : b.data());
  for (auto& b : r->workspace) wp.push_back(b.data());
  Io io{ip, op, wp};
  for (auto const& step : r->prep.steps()) r->runners.push_back(step.bind(io));
  return r;
}

/// The node's outputs equal `expected` (normwise 1e-4, the floor from the magnitudes the node
/// read and wrote) with 1 and 2 threads, and a second run gives the same bits.
inline void expect_outputs(std::string const& name, std::vector<Tensor> const& in, std::vector<TensorDesc> const& out,
                           std::vector<Tensor> const& expected, std::vector<char> const& constant, PrepareFn const& prepare) {
  double magnitude = 0;
  for (Tensor const& t : in) magnitude = std::max(magnitude, max_finite_magnitude(t));
  for (Tensor const& t : expected) magnitude = std::max(magnitude, max_finite_magnitude(t));
  for (int threads : {1, 2}) {
    auto node = bind_node("test " + name, in, out, constant, threads, prepare);
    node->run();
    auto first = node->outputs();
    ASSERT_EQ(first.size(), expected.size());
    for (std::size_t o = 0; o < expected.size(); ++o) {
      auto c = compare_output(expected[o], first[o], 1e-4, noise_floor(magnitude), o);
      EXPECT_TRUE(c.passed) << name << " " << threads << " threads: " << c.why;
    }
    node->run();
    auto second = node->outputs();
    for (std::size_t o = 0; o < expected.size(); ++o)
      EXPECT_TRUE(std::equal(first[o].data().begin(), first[o].data().end(), second[o].data().begin(), second[o].data().end(),
                             [](float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }))
          << name << ": a second run changed output " << o;
  }
}

template <class Op>
PrepareFn kernel_of(Op const& op) {
  return [op](Preparation& p) { Kernel<Op>::prepare(op, p); };
}

template <class Op>
std::unique_ptr<Prepared> prepare(Op const& op, std::vector<Tensor> const& in, std::vector<char> constant = {}, int threads = 1) {
  return bind_node("test " + std::string(Op::name), in, op.infer(descs_of(in)), std::move(constant), threads, kernel_of(op));
}

/// Op's CPU kernel computes what its reference kernel does.
template <class Op>
void expect_matches(Op const& op, std::vector<Tensor> const& in, std::vector<char> const& constant = {}) {
  auto out = op.infer(descs_of(in));
  std::vector<Tensor> expected = reference::evaluate(op, std::span<Tensor const>(in), std::span<TensorDesc const>(out));
  expect_outputs(std::string(Op::name), in, out, expected, constant, kernel_of(op));
}

inline Tensor rnd(Shape s, std::uint64_t seed, float lo = -1.f, float hi = 1.f) { return Tensor::random(s, seed, lo, hi); }

inline Conv2D conv(std::array<std::int64_t, 2> stride, std::array<std::int64_t, 4> pad, std::int64_t groups = 1,
            std::array<std::int64_t, 2> dilation = {1, 1}, Activation act = Activation::none) {
  return Conv2D{.stride = stride, .pad = pad, .dilation = dilation, .groups = groups, .act = act};
}

}  // namespace autograph::cpu::testing
