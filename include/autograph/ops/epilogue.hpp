#pragma once
// A producer (Conv2D or MatMul, with its own bias and activation) followed by a chain of
// elementwise steps on its output, as one operator: AutoGTCO's "elementwise chains into their
// producer" (§IV-B, the fusable groups of DPOF), which oneDNN runs as one primitive whose
// post-ops apply the steps to each output tile while it is still in registers (oneDNN's
// developer guide, "Primitive Attributes: Post-ops": eltwise, binary add/mul), and which
// onnxruntime does for ResNet's residual (its Conv + Add + Relu fusion into FusedConv's Z input).
//
//   y_0     = producer(x, w [, bias])             (the producer's own activation included)
//   y_{i+1} = step_i(y_i):  y + r_j | y * r_j | act(y) | scale * y + shift
//
// Inputs: the producer's (2, or 3 with its bias), then one operand per add/mul step, in step
// order, each of the output's shape (a residual; a broadcast operand is a bias, which the
// producer takes itself). What it saves: every step of the unfused chain reads and writes the
// whole output again, a memory-bound pass (DETR's backbone at 800 x 1333 has 68 MB outputs).
#include <array>
#include <cstdint>
#include <tuple>

#include "autograph/ops/conv2d.hpp"
#include "autograph/ops/matmul.hpp"

namespace autograph {

enum class EpilogueKind : std::uint8_t { add, mul, activation, scale };

/// One elementwise step after the producer.
struct EpilogueStep {
  EpilogueKind kind = EpilogueKind::add;
  Activation act = Activation::none;  // kind == activation
  float scale = 1.f, shift = 0.f;     // kind == scale
  bool operator==(EpilogueStep const&) const = default;

  /// Whether the step reads an operand (one more input of the op).
  constexpr bool binary() const { return kind == EpilogueKind::add || kind == EpilogueKind::mul; }
  static constexpr EpilogueStep add() { return {EpilogueKind::add}; }
  static constexpr EpilogueStep mul() { return {EpilogueKind::mul}; }
  static constexpr EpilogueStep activation(Activation a) { return {EpilogueKind::activation, a}; }
  static constexpr EpilogueStep affine(float scale, float shift) { return {EpilogueKind::scale, Activation::none, scale, shift}; }
};

/// The step applied to one element (`r`: the step's operand element, when it has one).
inline float apply(EpilogueStep const& s, float y, float r) {
  switch (s.kind) {
    case EpilogueKind::add: return y + r;
    case EpilogueKind::mul: return y * r;
    case EpilogueKind::activation: return apply(s.act, y);
    case EpilogueKind::scale: return s.scale * y + s.shift;
  }
  return y;
}

template <class Producer>
inline constexpr std::string_view epilogue_name = {};
template <>
inline constexpr std::string_view epilogue_name<Conv2D> = "Conv2DEpilogue";
template <>
inline constexpr std::string_view epilogue_name<MatMul> = "MatMulEpilogue";

template <class Producer>
  requires(!epilogue_name<Producer>.empty())
struct Epilogue {
  /// oneDNN 2.6 takes any number of post-ops; four covers add, activation, and two more.
  static constexpr std::size_t max_steps = 4;
  static constexpr std::string_view name = epilogue_name<Producer>;
  static constexpr Arity arity{2 + 1, 3 + max_steps};

  Producer producer{};
  bool bias = false;  // the producer reads input 2 as its bias
  std::uint8_t count = 0;
  std::array<EpilogueStep, max_steps> steps{};

  /// The op of `producer` (bias or not) followed by `chain`.
  static Epilogue of(Producer const& p, bool bias, std::initializer_list<EpilogueStep> chain) {
    Epilogue e{p, bias};
    for (EpilogueStep const& s : chain) e.append(s);
    return e;
  }
  /// Appends a step. @throws Error when the chain is full.
  void append(EpilogueStep const& s) {
    if (count == max_steps) throw Error(std::string(name) + ": a chain of at most " + std::to_string(max_steps) + " steps");
    steps[count++] = s;
  }
  std::span<EpilogueStep const> chain() const { return {steps.data(), count}; }
  std::size_t producer_inputs() const { return bias ? 3 : 2; }
  std::size_t operands() const {
    std::size_t n = 0;
    for (EpilogueStep const& s : chain()) n += s.binary();
    return n;
  }

  auto params() const {
    std::array<std::uint8_t, max_steps> kinds{}, acts{};
    std::array<float, max_steps> scales{}, shifts{};
    for (std::size_t i = 0; i < count; ++i) {
      kinds[i] = static_cast<std::uint8_t>(steps[i].kind);
      acts[i] = static_cast<std::uint8_t>(steps[i].act);
      scales[i] = steps[i].scale;
      shifts[i] = steps[i].shift;
    }
    return std::tuple_cat(producer.params(), std::tuple{bias, count, kinds, acts, scales, shifts});
  }
  bool operator==(Epilogue const&) const = default;

  std::vector<TensorDesc> infer(std::span<TensorDesc const> in) const {
    std::string const op(name);
    if (count == 0) throw ShapeError(op + ": an empty chain (use " + std::string(Producer::name) + ")");
    if (in.size() != producer_inputs() + operands())
      throw ShapeError(op + ": the producer takes " + std::to_string(producer_inputs()) + " inputs and the chain " +
                       std::to_string(operands()) + " operands, got " + std::to_string(in.size()) + " inputs");
    std::vector<TensorDesc> y;
    try {
      y = producer.infer(in.first(producer_inputs()));
    } catch (ShapeError const& e) {
      throw ShapeError(op + " (its producer): " + e.what());
    }
    for (std::size_t i = producer_inputs(); i < in.size(); ++i) {
      if (in[i].dtype != y[0].dtype)
        throw ShapeError(op + ": input " + std::to_string(i) + " (an operand) is " + std::string(to_string(in[i].dtype)) +
                         " but the producer gives " + std::string(to_string(y[0].dtype)));
      if (in[i].shape != y[0].shape)
        throw ShapeError(op + ": input " + std::to_string(i) + " (an operand) must have the output's shape " + y[0].shape.to_string() +
                         ", got " + in[i].shape.to_string());
    }
    return y;
  }
  double macs(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    return producer.macs(in.first(producer_inputs()), out);
  }
  /// The producer's, plus one per element for each step (two for a scale with a shift).
  double flops(std::span<TensorDesc const> in, std::span<TensorDesc const> out) const {
    double per = 0;
    for (EpilogueStep const& s : chain()) per += s.kind == EpilogueKind::scale && s.shift != 0.f ? 2 : 1;
    return producer.flops(in.first(producer_inputs()), out) + per * static_cast<double>(out[0].numel());
  }
  std::string attributes() const {
    std::string a = producer.attributes();
    for (EpilogueStep const& s : chain()) {
      a += a.empty() ? "" : " ";
      switch (s.kind) {
        case EpilogueKind::add: a += "+r"; break;
        case EpilogueKind::mul: a += "*r"; break;
        case EpilogueKind::activation: a += to_string(s.act); break;
        case EpilogueKind::scale: a += "*" + std::to_string(s.scale) + "+" + std::to_string(s.shift); break;
      }
    }
    return a;
  }
};

using Conv2DEpilogue = Epilogue<Conv2D>;
using MatMulEpilogue = Epilogue<MatMul>;

}  // namespace autograph
