#pragma once
// GraphBuilder: builds a Graph the way a model definition reads.
//
//   GraphBuilder b;
//   auto x = b.input("x", {1, 3, 224, 224});
//   auto y = b.relu(b.batch_norm(b.conv2d(x, 64, {7, 7}, {.stride = {2, 2}, .pad = {3, 3, 3, 3}})));
//   auto g = std::move(b).build({y});
//
// Helpers that need weights create shape-only Weight nodes named after the op
// ("<op name>.weight"); fill_random_weights() gives them data. Every call checks shapes
// before it adds anything: a failed call throws and leaves the graph as it was.
#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"

namespace autograph {

struct ConvOptions {
  std::array<std::int64_t, 2> stride{1, 1};
  std::optional<std::array<std::int64_t, 4>> pad = std::nullopt;  // default: "same" for stride 1 ((k-1)/2 each side)
  std::array<std::int64_t, 2> dilation{1, 1};
  std::int64_t groups = 1;
  Activation act = Activation::none;
  bool bias = false;
};

struct PoolOptions {
  std::array<std::int64_t, 2> stride{1, 1};
  std::array<std::int64_t, 4> pad{0, 0, 0, 0};
  bool count_include_pad = false;
  bool ceil_mode = false;
};

template <class Set = BuiltinOps>
class GraphBuilder {
 public:
  /// Names of nodes made inside a scope are prefixed "<scope>/"; scopes nest.
  class Scope {
   public:
    explicit Scope(GraphBuilder& b, std::string const& name) : b_(b), saved_(b.prefix_) { b.prefix_ += name + "/"; }
    ~Scope() { b_.prefix_ = saved_; }
    Scope(Scope const&) = delete;
    Scope& operator=(Scope const&) = delete;

   private:
    GraphBuilder& b_;
    std::string saved_;
  };
  [[nodiscard]] Scope scope(std::string const& name) { return Scope(*this, name); }

  // ---- sources ----------------------------------------------------------------------------
  Value input(std::string const& name, Shape shape, DType dtype = DType::float32) {
    return add(Input{{shape, dtype}, name}, {}, name);
  }
  /// A shape-only weight (data comes later from a model file or fill_random_weights()).
  Value weight(std::string const& name, Shape shape, WeightInit init = WeightInit::fan_in);
  Value weight(std::string const& name, Tensor const& data);
  /// A weight that is not a trained parameter (Weight::trainable false): shape-only, or a
  /// constant with its data (a table computed when the model is built).
  Value buffer(std::string const& name, Shape shape, WeightInit init = WeightInit::fan_in);
  Value buffer(std::string const& name, Tensor const& data);

  // ---- any op -----------------------------------------------------------------------------
  /// Adds `op` reading `inputs`; returns its first output.
  template <Operator O>
  Value add(O op, std::vector<Value> const& inputs, std::string const& name = {}) {
    return add_named(Op(std::move(op)), inputs, unique_name(name.empty() ? lowercase(O::name) : name));
  }
  /// Adds `op` and returns all of its outputs.
  template <Operator O>
  std::vector<Value> add_multi(O op, std::vector<Value> const& inputs, std::string const& name = {}) {
    Value first = add(std::move(op), inputs, name);
    std::vector<Value> outs;
    for (std::uint32_t p = 0; p < g_[first.node].outputs.size(); ++p) outs.push_back({first.node, p});
    return outs;
  }

  // ---- layers -----------------------------------------------------------------------------
  /// Conv2D with a new weight [out_channels, C/groups, k0, k1] (and bias when asked).
  Value conv2d(Value x, std::int64_t out_channels, std::array<std::int64_t, 2> kernel, ConvOptions o = {}, std::string const& name = {});
  /// Inference BatchNorm with new scale, bias, mean and var weights.
  Value batch_norm(Value x, float epsilon = 1e-5f, std::string const& name = {});
  /// LayerNorm over the last axis with new gamma and beta.
  Value layer_norm(Value x, float epsilon = 1e-5f, std::string const& name = {});
  /// x[..., K] x W[K, N] (+ b[N]): a fully connected layer with new weights.
  Value linear(Value x, std::int64_t out_features, bool bias = true, Activation act = Activation::none, std::string const& name = {});
  Value matmul(Value a, Value b, Activation act = Activation::none, std::string const& name = {}) { return add(MatMul{act}, {a, b}, name); }

  Value activation(Value x, Activation act, std::string const& name = {}) {
    switch (act) {
      case Activation::relu: return relu(x, name);
      case Activation::sigmoid: return sigmoid(x, name);
      case Activation::tanh: return tanh(x, name);
      case Activation::gelu: return gelu(x, name);
      case Activation::none: break;
    }
    return x;
  }
  Value relu(Value x, std::string const& name = {}) { return add(Relu{}, {x}, name); }
  Value sigmoid(Value x, std::string const& name = {}) { return add(Sigmoid{}, {x}, name); }
  Value tanh(Value x, std::string const& name = {}) { return add(Tanh{}, {x}, name); }
  Value gelu(Value x, std::string const& name = {}) { return add(Gelu{}, {x}, name); }
  Value scale(Value x, float mul, float shift = 0.f, std::string const& name = {}) { return add(Scale{mul, shift}, {x}, name); }

  Value add(Value a, Value b, std::string const& name = {}) { return add(Add{}, {a, b}, name); }
  Value sub(Value a, Value b, std::string const& name = {}) { return add(Sub{}, {a, b}, name); }
  Value mul(Value a, Value b, std::string const& name = {}) { return add(Mul{}, {a, b}, name); }
  Value div(Value a, Value b, std::string const& name = {}) { return add(Div{}, {a, b}, name); }

  Value max_pool(Value x, std::array<std::int64_t, 2> kernel, PoolOptions o = {}, std::string const& name = {}) {
    return add(Pool2D{PoolKind::max, kernel, o.stride, o.pad, false, o.count_include_pad, o.ceil_mode}, {x}, name);
  }
  Value avg_pool(Value x, std::array<std::int64_t, 2> kernel, PoolOptions o = {}, std::string const& name = {}) {
    return add(Pool2D{PoolKind::avg, kernel, o.stride, o.pad, false, o.count_include_pad, o.ceil_mode}, {x}, name);
  }
  Value global_avg_pool(Value x, std::string const& name = {}) {
    return add(Pool2D{.kind = PoolKind::avg, .global = true}, {x}, name);
  }

  Value concat(std::vector<Value> const& xs, std::int64_t axis = 1, std::string const& name = {}) { return add(Concat{axis}, xs, name); }
  std::vector<Value> split(Value x, std::int64_t axis, std::vector<std::int64_t> sizes, std::string const& name = {}) {
    return add_multi(Split{axis, std::move(sizes)}, {x}, name);
  }
  Value reshape(Value x, std::vector<std::int64_t> shape, std::string const& name = {}) { return add(Reshape{std::move(shape)}, {x}, name); }
  Value transpose(Value x, std::vector<std::int64_t> perm, std::string const& name = {}) { return add(Transpose{std::move(perm)}, {x}, name); }
  Value softmax(Value x, std::int64_t axis = -1, std::string const& name = {}) { return add(Softmax{axis}, {x}, name); }

  // ---- finishing --------------------------------------------------------------------------
  Shape const& shape(Value v) const { return g_.desc(v).shape; }
  TensorDesc const& desc(Value v) const { return g_.desc(v); }
  Graph<Set> const& graph() const { return g_; }
  /// Weights made from here on have this dtype (inputs take theirs from input()).
  void set_weight_dtype(DType t) { dtype_ = t; }

  /// The finished graph with `outputs` as its outputs.
  Graph<Set> build(std::vector<Value> outputs) && {
    g_.set_outputs(std::move(outputs));
    return std::move(g_);
  }

 private:
  using Op = typename Graph<Set>::Op;

  static std::string lowercase(std::string_view s) {
    std::string r(s);
    for (char& c : r) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return r;
  }
  /// "<scope>/<base>", made unique with a numeric suffix.
  std::string unique_name(std::string const& base);
  Value add_named(Op op, std::vector<Value> const& inputs, std::string const& full);
  /// Runs f; on an exception restores the graph (a cheap copy-on-write snapshot) and the names
  /// it took, and rethrows.
  template <class F>
  Value transaction(F&& f) {
    Graph<Set> saved = g_;
    std::size_t mark = journal_.size();
    try {
      Value v = f();
      if (mark == 0) journal_.clear();  // outermost transaction: nothing left to undo
      return v;
    } catch (...) {
      g_ = std::move(saved);
      for (std::size_t i = mark; i < journal_.size(); ++i) names_.erase(journal_[i]);
      journal_.resize(mark);
      throw;
    }
  }

  Graph<Set> g_;
  std::string prefix_;
  std::set<std::string> names_;
  std::vector<std::string> journal_;  // names taken since the outermost open transaction
  std::map<std::string, int> counter_;
  DType dtype_ = DType::float32;
};

// The members with bodies of any size are defined out of the class: the `extern template` below
// then keeps the programs that link autograph::defaults from compiling them in every file that
// builds a graph (an inline member is compiled for inlining even under `extern template`).

template <class Set>
Value GraphBuilder<Set>::weight(std::string const& name, Shape shape, WeightInit init) {
  std::string full = unique_name(name);
  return add_named(Weight{{shape, dtype_}, nullptr, hash_value(full), init}, {}, full);
}

template <class Set>
Value GraphBuilder<Set>::weight(std::string const& name, Tensor const& data) {
  std::string full = unique_name(name);
  return add_named(Weight{{data.shape(), dtype_}, data.storage(), hash_value(full), WeightInit::fan_in}, {}, full);
}

template <class Set>
Value GraphBuilder<Set>::buffer(std::string const& name, Shape shape, WeightInit init) {
  std::string full = unique_name(name);
  return add_named(Weight{{shape, dtype_}, nullptr, hash_value(full), init, false}, {}, full);
}

template <class Set>
Value GraphBuilder<Set>::buffer(std::string const& name, Tensor const& data) {
  std::string full = unique_name(name);
  return add_named(Weight{{data.shape(), dtype_}, data.storage(), hash_value(full), WeightInit::fan_in, false}, {}, full);
}

template <class Set>
Value GraphBuilder<Set>::conv2d(Value x, std::int64_t out_channels, std::array<std::int64_t, 2> kernel, ConvOptions o, std::string const& name) {
  Conv2D op{o.stride, o.pad.value_or(Conv2D::same_pad(kernel[0], kernel[1])), o.dilation, o.groups, o.act};
  std::int64_t c = shape(x).rank() == 4 ? shape(x)[1] : 0;
  return transaction([&] {
    std::string n = unique_name(name.empty() ? "conv" : name);
    std::vector<Value> in{x, weight(n + ".weight", Shape{out_channels, o.groups > 0 ? c / o.groups : c, kernel[0], kernel[1]})};
    if (o.bias) in.push_back(weight(n + ".bias", Shape{out_channels}, WeightInit::uniform));
    return add_named(Op(op), in, n);
  });
}

template <class Set>
Value GraphBuilder<Set>::batch_norm(Value x, float epsilon, std::string const& name) {
  return transaction([&] {
    std::string n = unique_name(name.empty() ? "bn" : name);
    if (shape(x).rank() < 2) throw ShapeError("BatchNorm '" + n + "': x must have a channel axis, got " + shape(x).to_string());
    Shape c{shape(x)[1]};
    return add_named(Op(BatchNorm{epsilon}),
                     {x, weight(n + ".scale", c, WeightInit::positive), weight(n + ".bias", c, WeightInit::uniform),
                      weight(n + ".mean", c, WeightInit::uniform), weight(n + ".var", c, WeightInit::positive)},
                     n);
  });
}

template <class Set>
Value GraphBuilder<Set>::layer_norm(Value x, float epsilon, std::string const& name) {
  return transaction([&] {
    std::string n = unique_name(name.empty() ? "ln" : name);
    if (shape(x).rank() < 1) throw ShapeError("LayerNorm '" + n + "': x must have at least one axis");
    Shape last{shape(x)[shape(x).rank() - 1]};
    return add_named(Op(LayerNorm{-1, epsilon}), {x, weight(n + ".gamma", last, WeightInit::positive), weight(n + ".beta", last, WeightInit::uniform)}, n);
  });
}

template <class Set>
Value GraphBuilder<Set>::linear(Value x, std::int64_t out_features, bool bias, Activation act, std::string const& name) {
  return transaction([&] {
    std::string n = unique_name(name.empty() ? "linear" : name);
    auto const& s = shape(x);
    if (s.rank() < 2) throw ShapeError("linear '" + n + "': x must be at least 2-D, got " + s.to_string());
    Value y = add_named(Op(MatMul{bias ? Activation::none : act}), {x, weight(n + ".weight", Shape{s[s.rank() - 1], out_features})}, n);
    if (!bias) return y;
    y = add_named(Op(Add{}), {y, weight(n + ".bias", Shape{out_features}, WeightInit::uniform)}, unique_name(n + ".add_bias"));
    return act == Activation::none ? y : activation(y, act);
  });
}

template <class Set>
std::string GraphBuilder<Set>::unique_name(std::string const& base) {
  std::string full = base.find('/') == std::string::npos || prefix_.empty() ? prefix_ + base : base;
  if (names_.count(full)) {
    std::string candidate;
    do candidate = full + "_" + std::to_string(++counter_[full]);
    while (names_.count(candidate));
    full = candidate;
  }
  return full;
}

template <class Set>
Value GraphBuilder<Set>::add_named(Op op, std::vector<Value> const& inputs, std::string const& full) {
  NodeId id = g_.add(std::move(op), std::span<Value const>(inputs), full);
  names_.insert(full);
  journal_.push_back(full);
  return {id, 0};
}

#if defined(AUTOGRAPH_PRECOMPILED)
extern template class GraphBuilder<BuiltinOps>;
#endif

}  // namespace autograph
