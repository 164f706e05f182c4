#pragma once
// The importer's state while it walks an ONNX graph: what each ONNX value name stands for
// (a value of the graph being built, a constant known at import time, or an output the
// importer does not produce), and the helpers every operator translation uses to read its
// inputs and attributes and to add nodes.
#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "autograph/graph/graph.hpp"
#include "autograph/io/onnx/detail/fold.hpp"
#include "autograph/io/onnx/detail/proto.hpp"

namespace autograph::onnx_detail {

/// An ONNX output the importer does not compute (BatchNormalization's running mean, MaxPool's
/// indices, Dropout's mask): reading it is an OnnxUnsupportedError with this reason.
struct Unavailable {
  std::string reason;
};

using Slot = std::variant<Value, Constant, Unavailable>;

class ImportContext {
 public:
  Graph<BuiltinOps> g;
  std::int64_t opset = 0;
  std::size_t folded = 0;  // ONNX nodes evaluated at import time

  // ---- values -------------------------------------------------------------------------------
  void define(std::string const& name, Slot s) {
    if (name.empty()) return;
    values_[name] = std::move(s);
  }
  bool defined(std::string const& name) const { return values_.count(name) != 0; }
  Slot const& lookup(std::string const& name, std::string const& who) const {
    auto it = values_.find(name);
    if (it == values_.end())
      throw OnnxImportError(who + " reads '" + name + "', which no earlier node, initializer or graph input produces");
    if (auto const* u = std::get_if<Unavailable>(&it->second)) throw OnnxUnsupportedError(who + " reads '" + name + "': " + u->reason);
    return it->second;
  }
  void mark_graph_input(std::string const& name) { graph_inputs_.insert(name); }

  // ---- the node being translated ------------------------------------------------------------
  void begin(::onnx::NodeProto const& n) {
    node_ = &n;
    std::string id = !n.name().empty() ? n.name() : n.output_size() > 0 && !n.output(0).empty() ? n.output(0) : std::string{};
    name_ = id;
    label_ = n.op_type() + (id.empty() ? std::string{} : " '" + id + "'");
    attrs_.emplace(n, label_);
  }
  ::onnx::NodeProto const& node() const { return *node_; }
  std::string const& label() const { return label_; }
  Attributes const& attr() const { return *attrs_; }

  /// Throws unless the node has between lo and hi inputs and at least one output.
  void arity(int lo, int hi) const {
    int n = node_->input_size();
    if (n < lo || n > hi)
      throw OnnxImportError(label_ + " has " + std::to_string(n) + " inputs; it takes " +
                        (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)));
    if (node_->output_size() < 1 || node_->output(0).empty()) throw OnnxImportError(label_ + " has no output");
  }
  int num_inputs() const { return node_->input_size(); }
  bool has_input(int i) const { return i < node_->input_size() && !node_->input(i).empty(); }
  std::string const& input_name(int i) const { return node_->input(i); }
  Slot const& input(int i) const {
    if (!has_input(i)) throw OnnxImportError(label_ + ": input " + std::to_string(i) + " is missing");
    return lookup(node_->input(i), label_);
  }
  bool is_constant(int i) const { return std::holds_alternative<Constant>(input(i)); }
  bool all_constant() const {
    for (int i = 0; i < node_->input_size(); ++i)
      if (has_input(i) && !is_constant(i)) return false;
    return true;
  }

  /// Input i as a constant; throws (naming `what`) when it is only known at run time.
  Constant const& constant(int i, std::string const& what) const {
    Slot const& s = input(i);
    if (auto const* c = std::get_if<Constant>(&s)) return *c;
    std::string const& name = node_->input(i);
    if (graph_inputs_.count(name))
      throw OnnxConstantRequiredError(label_ + ": " + what + " must be known at import time, but it is the graph input '" + name +
                                      "' (make it an initializer, or give its value in OnnxImportOptions::constant_inputs)",
                                  name);
    throw OnnxUnsupportedError(label_ + ": " + what + " ('" + name + "') is computed at run time; the importer needs it constant");
  }
  /// Input i's values as int64 (a shape, axes, sizes); empty when the input is absent.
  std::vector<std::int64_t> ints(int i, std::string const& what) const {
    if (!has_input(i)) return {};
    Constant const& c = constant(i, what);
    if (c.is_float()) throw OnnxImportError(label_ + ": " + what + " must be an integer tensor, got " + c.describe());
    return c.ints;
  }
  /// A scalar input (a one-element constant) as a double.
  double scalar(int i, std::string const& what) const {
    Constant const& c = constant(i, what);
    if (c.numel() != 1) throw OnnxImportError(label_ + ": " + what + " must have one element, got " + c.describe());
    return c.number(0);
  }

  /// Input i as a graph value; a constant becomes a Weight node (once per ONNX name).
  Value value(int i) {
    Slot const& s = input(i);
    if (auto const* v = std::get_if<Value>(&s)) return *v;
    return materialize(node_->input(i), std::get<Constant>(s));
  }
  /// A constant as a Weight node. Integer constants are converted to float only where the
  /// consumer accepts that (Pow's exponent); elsewhere they are an error naming the value.
  Value materialize(std::string const& name, Constant const& c, bool allow_int = false) {
    if (auto it = weights_.find(name); it != weights_.end()) return it->second;
    Constant f = c;
    if (!c.is_float()) {
      if (!allow_int)
        throw OnnxUnsupportedError(label_ + ": '" + name + "' is an " + dtype_name(c.dtype) + " tensor used as data; runtime tensors are float32 only");
      f = cast(c, ::onnx::TensorProto::FLOAT);
    }
    if (c.dtype != ::onnx::TensorProto::FLOAT && c.is_float() && !allow_int)
      throw OnnxUnsupportedError(label_ + ": '" + name + "' is a " + dtype_name(c.dtype) + " tensor; runtime tensors are float32 only");
    Weight w{{f.shape, DType::float32}, f.floats, hash_value(name), WeightInit::fan_in};
    NodeId id = g.add(AnyOp(std::move(w)), std::span<Value const>{}, name);
    Value v{id, 0};
    if (!name.empty()) weights_.emplace(name, v);
    return v;
  }
  /// A new constant made by the importer itself (a zero bias, a broadcast scale) as a Weight.
  Value new_weight(std::string const& role, Constant const& c) { return materialize(name_ + "/" + role, c); }

  /// Sets output i of the node; absent outputs (empty names) are skipped.
  void output(int i, Slot s) {
    if (i < node_->output_size()) define(node_->output(i), std::move(s));
  }
  /// Outputs i.. of the node must not be read by anything: defines them as Unavailable.
  void unavailable_from(int first, std::string const& reason) {
    for (int i = first; i < node_->output_size(); ++i) define(node_->output(i), Unavailable{label_ + " output " + std::to_string(i) + " " + reason});
  }

  /// Adds a node computing ONNX node's work; `role` names helper nodes ("<name>/<role>").
  /// Shape errors become ImportErrors naming the ONNX node. Returns output 0.
  Value add(AnyOp op, std::vector<Value> const& inputs, std::string const& role = {}) {
    NodeId id;
    try {
      id = g.add(std::move(op), std::span<Value const>(inputs), role.empty() ? name_ : name_ + "/" + role);
    } catch (ShapeError const& e) {
      throw OnnxImportError(label_ + ": " + e.what());
    }
    for (auto const& d : g[id].outputs)
      if (!checked_numel(d.shape.dims())) throw OnnxImportError(label_ + ": output shape " + d.shape.to_string() + " is too large");
    return {id, 0};
  }
  Shape const& shape(Value v) const { return g.desc(v).shape; }
  /// The shape of input i, whether it is a graph value or a constant.
  Shape input_shape(int i) const {
    Slot const& s = input(i);
    if (auto const* v = std::get_if<Value>(&s)) return g.desc(*v).shape;
    return std::get<Constant>(s).shape;
  }

  /// Attribute ints checked to lie in [lo, hi] (geometry: strides, pads, kernel sizes).
  std::vector<std::int64_t> checked_ints(std::string_view name, std::vector<std::int64_t> dflt, std::int64_t lo,
                                         std::int64_t hi = std::int64_t{1} << 20) const {
    auto v = attr().ints(name, std::move(dflt));
    for (auto x : v)
      if (x < lo || x > hi)
        throw OnnxImportError(label_ + ": attribute '" + std::string(name) + "' value " + std::to_string(x) + " is outside [" + std::to_string(lo) +
                          ", " + std::to_string(hi) + "]");
    return v;
  }

  void note_folded() { ++folded; }

 private:
  std::map<std::string, Slot> values_;
  std::map<std::string, Value> weights_;
  std::set<std::string> graph_inputs_;
  ::onnx::NodeProto const* node_ = nullptr;
  std::string name_, label_;
  std::optional<Attributes> attrs_;
};

}  // namespace autograph::onnx_detail
