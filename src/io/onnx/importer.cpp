// The ONNX importer (declared in autograph/io/onnx/importer.hpp): model-level work here,
// one translation per operator in detail/import_ops.hpp.
#include "autograph/io/onnx/importer.hpp"

#include <fstream>
#include <set>

#include "autograph/graph/validate.hpp"
#include "autograph/io/onnx/detail/import_ops.hpp"

namespace autograph {

/// Operator types the importer translates ("domain:Op" outside the default domain), and
/// whether each is evaluated at import time only (then its inputs must be constant).
std::map<std::string, bool> supported_onnx_ops() {
  std::map<std::string, bool> r;
  for (auto const& [name, entry] : onnx_detail::translations()) r.emplace(name, entry.import_time_only);
  return r;
}

namespace onnx_detail {

std::string op_key(::onnx::NodeProto const& n) {
  return n.domain().empty() || n.domain() == "ai.onnx" ? n.op_type() : n.domain() + ":" + n.op_type();
}

std::string dims_of(::onnx::TypeProto_Tensor const& t) {
  if (!t.has_shape()) return "(unknown rank)";
  std::string s = "[";
  for (int i = 0; i < t.shape().dim_size(); ++i) {
    auto const& d = t.shape().dim(i);
    s += (i ? "," : "");
    s += d.has_dim_value() ? std::to_string(d.dim_value()) : d.has_dim_param() && !d.dim_param().empty() ? d.dim_param() : "?";
  }
  return s + "]";
}

/// The shape of graph input `vi`: the caller's when given (checked against the static dims),
/// else the model's, which must then be fully static. `dynamic` is set when the model's shape
/// has dynamic dimensions (the caller's shape fixed them).
Shape input_shape(::onnx::ValueInfoProto const& vi, OnnxImportOptions const& opt, bool& dynamic) {
  auto const& t = vi.type().tensor_type();
  dynamic = !t.has_shape() || std::ranges::any_of(t.shape().dim(), [](auto const& d) { return !d.has_dim_value() || d.dim_value() < 0; });
  auto given = opt.input_shapes.find(vi.name());
  if (given != opt.input_shapes.end()) {
    Shape const& s = given->second;
    if (t.has_shape()) {
      if (t.shape().dim_size() != static_cast<int>(s.rank()))
        throw OnnxImportError("input '" + vi.name() + "' has rank " + std::to_string(t.shape().dim_size()) + " " + dims_of(t) +
                          ", but the given shape " + s.to_string() + " has rank " + std::to_string(s.rank()));
      for (int i = 0; i < t.shape().dim_size(); ++i) {
        auto const& d = t.shape().dim(i);
        if (d.has_dim_value() && d.dim_value() != s[static_cast<std::size_t>(i)])
          throw OnnxImportError("input '" + vi.name() + "' has static dimension " + std::to_string(i) + " = " + std::to_string(d.dim_value()) +
                            " " + dims_of(t) + ", but the given shape " + s.to_string() + " says " + std::to_string(s[static_cast<std::size_t>(i)]));
      }
    }
    if (!checked_numel(s.dims())) throw OnnxImportError("input '" + vi.name() + "': shape " + s.to_string() + " is too large");
    return s;
  }
  auto dynamic_error = [&] {
    return OnnxImportError("input '" + vi.name() + "' has dynamic dimensions " + dims_of(t) +
                       "; fix its shape (OnnxImportOptions::input_shapes; on the command line --input " + vi.name() + "=1x3x224x224)");
  };
  if (!t.has_shape()) throw dynamic_error();
  std::vector<std::int64_t> dims;
  for (auto const& d : t.shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) throw dynamic_error();
    dims.push_back(d.dim_value());
  }
  if (dims.size() > Shape::max_rank) throw OnnxUnsupportedError("input '" + vi.name() + "' has " + std::to_string(dims.size()) + " dimensions; at most 8 are supported");
  if (!checked_numel(dims)) throw OnnxImportError("input '" + vi.name() + "': shape " + dims_string(dims) + " is too large");
  return Shape(dims);
}

ImportedOnnxModel import(::onnx::ModelProto const& m, OnnxImportOptions const& opt, ExternalData const& ext) {
  ImportedOnnxModel result;
  result.ir_version = m.ir_version();
  result.producer = m.producer_name() + (m.producer_version().empty() ? "" : " " + m.producer_version());
  bool has_opset = false;
  for (auto const& o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") {
      result.opset = o.version();
      has_opset = true;
    }
  if (!has_opset) {
    // IR version 1/2 models predate opset_import and mean opset 1.
    if (m.ir_version() >= 3) throw OnnxImportError("the model imports no ai.onnx opset");
    result.opset = 1;
  }
  if (!m.has_graph()) throw OnnxImportError("the model has no graph");
  auto const& graph = m.graph();

  // 1. Every operator type must be known: count the unknown ones over the whole graph, and
  //    name their first nodes so a user can find them in a large model.
  std::map<std::string, std::size_t> unsupported;
  std::map<std::string, std::string> unsupported_nodes;
  auto const& table = translations();
  for (int i = 0; i < graph.node_size(); ++i) {
    auto const& n = graph.node(i);
    std::string key = op_key(n);
    ++result.onnx_ops[key];
    if (table.count(key)) continue;
    std::size_t count = ++unsupported[key];
    std::string& names = unsupported_nodes[key];
    if (count > 3) {
      if (count == 4) names += ", ...";
      continue;
    }
    std::string id = !n.name().empty() ? n.name() : n.output_size() > 0 && !n.output(0).empty() ? n.output(0) : "#" + std::to_string(i);
    names += (count == 1 ? "'" : ", '") + id + "'";
  }
  if (!unsupported.empty()) {
    std::string list;
    for (auto const& [op, count] : unsupported)
      list += (list.empty() ? "" : ", ") + op + " (" + std::to_string(count) + ": " + unsupported_nodes[op] + ")";
    throw OnnxUnsupportedError("the model uses " + std::to_string(unsupported.size()) + " unsupported operator type" +
                               (unsupported.size() == 1 ? "" : "s") + ": " + list,
                           unsupported);
  }
  if (graph.sparse_initializer_size() > 0) throw OnnxUnsupportedError("sparse initializers are not supported");

  ImportContext c;
  c.opset = result.opset;

  // 2. Initializers are constants; graph inputs that are not initializers become Input nodes
  //    (or constants, when the caller fixes their values).
  std::set<std::string> initializers;
  for (auto const& t : graph.initializer()) {
    if (t.name().empty()) throw OnnxImportError("an initializer has no name");
    c.define(t.name(), to_constant(t, "initializer '" + t.name() + "'", ext));
    initializers.insert(t.name());
  }
  auto is_input = [&](std::string const& name) {
    return std::ranges::any_of(graph.input(), [&](auto const& vi) { return vi.name() == name; });
  };
  auto not_an_input = [&](char const* what, std::string const& name) {
    std::string inputs;  // the ones a caller can give: graph inputs that are not initializers
    for (auto const& vi : graph.input())
      if (!initializers.count(vi.name())) inputs += (inputs.empty() ? "'" : ", '") + vi.name() + "'";
    return OnnxImportError(std::string("a ") + what + " was given for '" + name + "', which is not an input of the model (its inputs: " +
                           (inputs.empty() ? "none" : inputs) + ")");
  };
  for (auto const& given : opt.input_shapes)
    if (!is_input(given.first)) throw not_an_input("shape", given.first);
  for (auto const& given : opt.constant_inputs)
    if (!is_input(given.first)) throw not_an_input("value", given.first);
  for (auto const& vi : graph.input()) {
    if (initializers.count(vi.name())) continue;
    if (vi.name().empty()) throw OnnxImportError("a graph input has no name");
    if (!vi.type().has_tensor_type()) throw OnnxUnsupportedError("input '" + vi.name() + "' is not a tensor (sequences, maps and optionals are not supported)");
    int dt = vi.type().tensor_type().elem_type();
    if (auto fixed = opt.constant_inputs.find(vi.name()); fixed != opt.constant_inputs.end()) {
      if (fixed->second.data_type() != dt)
        throw OnnxImportError("the value given for input '" + vi.name() + "' is " + dtype_name(fixed->second.data_type()) + ", but the input is " + dtype_name(dt));
      c.define(vi.name(), to_constant(fixed->second, "the value given for input '" + vi.name() + "'"));
      continue;
    }
    if (dt != ::onnx::TensorProto::FLOAT)
      throw OnnxUnsupportedError("input '" + vi.name() + "' is " + dtype_name(dt) + "; only float32 graph inputs are supported" +
                             (is_int_type(dt) ? " (give its value in OnnxImportOptions::constant_inputs if it is fixed)" : ""));
    bool dynamic = false;
    Shape s = input_shape(vi, opt, dynamic);
    if (dynamic) result.dynamic_inputs[vi.name()] = dims_of(vi.type().tensor_type());
    NodeId id = c.g.add(AnyOp(Input{{s, DType::float32}, vi.name()}), std::span<Value const>{}, vi.name());
    c.define(vi.name(), Value{id, 0});
    c.mark_graph_input(vi.name());
    result.input_names.push_back(vi.name());
  }

  // 3. Nodes, in the model's (topological) order.
  for (auto const& n : graph.node()) {
    c.begin(n);
    for (auto const& out : n.output())
      if (!out.empty() && c.defined(out)) throw OnnxImportError(c.label() + ": output '" + out + "' is already defined by an earlier node or input");
    table.find(op_key(n))->second.translate(c);
    for (int i = 0; i < n.output_size(); ++i)
      if (!n.output(i).empty() && !c.defined(n.output(i)))
        throw OnnxImportError(c.label() + ": output " + std::to_string(i) + " ('" + n.output(i) + "') is not produced");
  }

  // 4. Outputs must be float32 values; one computed entirely at import time becomes a Weight.
  std::vector<Value> outs;
  for (auto const& vi : graph.output()) {
    Slot const& s = c.lookup(vi.name(), "graph output '" + vi.name() + "'");
    if (auto const* v = std::get_if<Value>(&s)) {
      outs.push_back(*v);
    } else {
      Constant const& k = std::get<Constant>(s);
      if (k.dtype != ::onnx::TensorProto::FLOAT)
        throw OnnxUnsupportedError("graph output '" + vi.name() + "' is " + k.describe() + ", computed at import time; only float32 outputs are supported");
      outs.push_back(c.materialize(vi.name(), k));
    }
    result.output_names.push_back(vi.name());
  }
  if (outs.empty()) throw OnnxImportError("the model has no outputs");
  c.g.set_outputs(std::move(outs));
  c.g.remove_dead();
  validate(c.g);
  result.folded = c.folded;
  result.graph = std::move(c.g);
  return result;
}

}  // namespace onnx_detail

/// Imports a parsed model. External tensor data is resolved against `external_data_dir`
/// (empty: external data is an error).
ImportedOnnxModel import_onnx_model(::onnx::ModelProto const& model, OnnxImportOptions const& options, std::filesystem::path const& external_data_dir) {
  return onnx_detail::import(model, options, onnx_detail::ExternalData{external_data_dir});
}

/// Imports a model from its serialized bytes.
ImportedOnnxModel import_onnx_bytes(std::string_view bytes, OnnxImportOptions const& options, std::filesystem::path const& external_data_dir) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw OnnxUnsupportedError("the model is " + std::to_string(bytes.size()) + " bytes; protobuf reads at most 2 GiB (keep large weights as external data)");
  ::onnx::ModelProto m;
  if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) throw OnnxImportError("not a valid ONNX model (protobuf parse failed)");
  return import_onnx_model(m, options, external_data_dir);
}

/// Reads a whole file (a model, a TensorProto) into memory.
std::string onnx_detail::read_file_bytes(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw OnnxImportError("cannot open " + path.string());
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw OnnxImportError("cannot read " + path.string());
  return bytes;
}

/// Imports a model file; external data files are looked up next to it.
ImportedOnnxModel import_onnx(std::filesystem::path const& path, OnnxImportOptions const& options) {
  try {
    return import_onnx_bytes(onnx_detail::read_file_bytes(path), options, path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path());
  } catch (OnnxUnsupportedError const&) {
    throw;
  } catch (OnnxImportError const& e) {
    throw OnnxImportError(path.string() + ": " + e.what());
  }
}

/// Reads a serialized TensorProto (the ONNX test data's input_0.pb).
::onnx::TensorProto read_onnx_tensor(std::filesystem::path const& path) {
  std::string bytes = onnx_detail::read_file_bytes(path);
  ::onnx::TensorProto t;
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) || !t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw OnnxImportError(path.string() + ": not a valid TensorProto");
  return t;
}

/// A float32 Tensor from a TensorProto.
Tensor onnx_to_tensor(::onnx::TensorProto const& t) { return onnx_detail::to_tensor(t, t.name().empty() ? "tensor" : "tensor '" + t.name() + "'"); }

std::string onnx_op_key(::onnx::NodeProto const& n) { return onnx_detail::op_key(n); }

}  // namespace autograph
