#pragma once
// Helpers shared by the ONNX tests: hand-written models, running graphs, onnx.checker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "autograph/core/tensor.hpp"
#include "autograph/graph/graph.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "../testing/scratch_dir.hpp"

namespace autograph::testing {

/// Runs `g` on the reference executor, inputs bound by name. Defined once, in
/// onnx_conformance_test.cpp, so only one test file pays for instantiating the executor.
std::vector<Tensor> run_reference(Graph<BuiltinOps> const& g, std::map<std::string, Tensor> const& inputs);

/// Same as above with random inputs (uniform in [-1, 1), seeded by input position).
inline std::map<std::string, Tensor> random_inputs(Graph<BuiltinOps> const& g, std::uint64_t seed) {
  std::map<std::string, Tensor> in;
  std::uint64_t k = seed;
  for (NodeId id : g.inputs()) {
    auto const* i = g[id].get_if<Input>();
    in.emplace(i->label, Tensor::random(i->desc.shape, ++k));
  }
  return in;
}

/// Every element within atol + rtol * |want| (NaNs must match).
inline ::testing::AssertionResult all_close(Tensor const& got, Tensor const& want, double rtol = 1e-4, double atol = 1e-5) {
  if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shape " << got.shape().to_string() << ", expected " << want.shape().to_string();
  auto g = got.data(), w = want.data();
  for (std::size_t i = 0; i < w.size(); ++i) {
    double a = g[i], b = w[i];
    if ((std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= atol + rtol * std::fabs(b)) continue;
    return ::testing::AssertionFailure() << "element " << i << " is " << a << ", expected " << b;
  }
  return ::testing::AssertionSuccess();
}

// ---- writing small ONNX models by hand ----------------------------------------------------------

struct OnnxModel {
  ::onnx::ModelProto m;
  explicit OnnxModel(std::int64_t opset = 17) {
    m.set_ir_version(8);
    m.add_opset_import()->set_version(opset);
    m.mutable_graph()->set_name("test");
  }
  ::onnx::GraphProto& g() { return *m.mutable_graph(); }

  /// dims: -1 is a symbolic dimension named "N".
  OnnxModel& input(std::string const& name, std::vector<std::int64_t> dims, int type = ::onnx::TensorProto::FLOAT) {
    value_info(g().add_input(), name, dims, type);
    return *this;
  }
  OnnxModel& output(std::string const& name, std::vector<std::int64_t> dims = {}, int type = ::onnx::TensorProto::FLOAT) {
    value_info(g().add_output(), name, dims, type);
    return *this;
  }
  ::onnx::NodeProto& node(std::string const& op, std::vector<std::string> in, std::vector<std::string> out, std::string const& name = {}) {
    auto* n = g().add_node();
    n->set_op_type(op);
    n->set_name(name.empty() ? out.at(0) : name);
    for (auto& s : in) n->add_input(s);
    for (auto& s : out) n->add_output(s);
    return *n;
  }
  OnnxModel& floats(std::string const& name, std::vector<std::int64_t> dims, std::vector<float> v, bool raw = true) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::FLOAT);
    for (auto d : dims) t->add_dims(d);
    if (raw) t->set_raw_data(std::string(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(float)));
    else
      for (float x : v) t->add_float_data(x);
    return *this;
  }
  OnnxModel& ints(std::string const& name, std::vector<std::int64_t> v, bool raw = false) {
    auto* t = g().add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT64);
    t->add_dims(static_cast<std::int64_t>(v.size()));
    if (raw) t->set_raw_data(std::string(reinterpret_cast<char const*>(v.data()), v.size() * sizeof(std::int64_t)));
    else
      for (auto x : v) t->add_int64_data(x);
    return *this;
  }
  std::string bytes() const { return m.SerializeAsString(); }

 private:
  static void value_info(::onnx::ValueInfoProto* vi, std::string const& name, std::vector<std::int64_t> const& dims, int type) {
    vi->set_name(name);
    auto* t = vi->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* s = t->mutable_shape();
    for (auto d : dims) {
      if (d < 0) s->add_dim()->set_dim_param("N");
      else s->add_dim()->set_dim_value(d);
    }
  }
};

inline void set_int(::onnx::NodeProto& n, std::string const& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void set_ints(::onnx::NodeProto& n, std::string const& name, std::vector<std::int64_t> v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INTS);
  for (auto x : v) a->add_ints(x);
}
inline void set_float(::onnx::NodeProto& n, std::string const& name, float v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(v);
}

// ---- onnx.checker ------------------------------------------------------------------------------

/// A Python interpreter that has the onnx module (Debian's python3-onnx), or nullopt.
inline std::optional<std::string> python_with_onnx() {
  for (char const* py : {"python3", "/usr/bin/python3"}) {
    std::string cmd = std::string(py) + " -c \"import onnx\" > /dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return std::string(py);
  }
  return std::nullopt;
}

/// Runs onnx.checker.check_model(full_check=True) on each file; returns "" when all pass,
/// else the checker's report. Skips the calling test when python3-onnx is missing.
inline std::string onnx_check(std::vector<std::filesystem::path> const& files, std::filesystem::path const& scratch) {
  auto py = python_with_onnx();
  if (!py) return "SKIP";
  std::filesystem::path script = scratch / "check.py", report = scratch / "check.txt";
  std::ofstream(script) << "import sys, onnx\n"
                           "bad = 0\n"
                           "for path in sys.argv[1:]:\n"
                           "    try:\n"
                           "        onnx.checker.check_model(onnx.load(path), full_check=True)\n"
                           "    except Exception as e:\n"
                           "        bad += 1\n"
                           "        print(path + ': ' + str(e).splitlines()[0] if str(e) else path)\n"
                           "sys.exit(1 if bad else 0)\n";
  std::string cmd = *py + " " + script.string();
  for (auto const& f : files) cmd += " '" + f.string() + "'";
  cmd += " > '" + report.string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream in(report);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return rc == 0 ? std::string{} : (text.empty() ? "checker exited with " + std::to_string(rc) : text);
}

}  // namespace autograph::testing
