// ONNX backend conformance: every case of Debian's libonnx-testdata whose operator the
// importer claims is imported and run on the reference executor, and its outputs compared
// with the expected ones (rtol 1e-3, atol 1e-7, the backend suite's defaults). A claimed op
// with a failing case fails the test; cases outside the claimed scope must be refused with an
// OnnxUnsupportedError, and are counted separately. A table per op is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

#include "autograph/io/onnx/exporter.hpp"
#include "autograph/io/onnx/importer.hpp"
#include "autograph/runtime/reference_executor.hpp"
#include "onnx_testing.hpp"

namespace autograph {

std::vector<Tensor> testing::run_reference(Graph<BuiltinOps> const& g, std::map<std::string, Tensor> const& inputs) {
  return ReferenceExecutor<>{}.run(g, inputs);
}

namespace {

namespace fs = std::filesystem;

fs::path const testdata = "/usr/share/libonnx-testdata/data";

enum class Status { passed, failed, unsupported, bad_data };

struct CaseResult {
  std::string name, op;
  Status status = Status::failed;
  std::string detail;
};

std::string lower_no_underscore(std::string s) {
  std::string r;
  for (char ch : s)
    if (ch != '_') r += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return r;
}

/// The op a node test exercises: the node's type for a one-node model; for an expanded
/// (function body) model, the claimed op spelled by the leading words of the test name
/// ("test_layer_normalization_2d_axis0_expanded" is LayerNormalization).
std::string case_op(std::string const& test_name, ::onnx::ModelProto const& m, std::map<std::string, bool> const& claimed) {
  if (m.graph().node_size() == 1) return onnx_op_key(m.graph().node(0));
  std::map<std::string, std::string> by_key;
  for (auto const& [op, fold_only] : claimed) by_key[lower_no_underscore(op)] = op;
  std::string words, best;
  std::istringstream in(test_name.substr(5));  // drop "test_"
  for (std::string word; std::getline(in, word, '_');) {
    words += lower_no_underscore(word);
    if (auto it = by_key.find(words); it != by_key.end()) best = it->second;
  }
  return best;
}

::testing::AssertionResult close(Tensor const& got, Tensor const& want, double rtol = 1e-3, double atol = 1e-7) {
  if (got.shape() != want.shape()) return ::testing::AssertionFailure() << "shape " << got.shape().to_string() << ", expected " << want.shape().to_string();
  auto g = got.data(), w = want.data();
  for (std::size_t i = 0; i < w.size(); ++i) {
    double a = g[i], b = w[i];
    bool ok = (std::isnan(a) && std::isnan(b)) || a == b || std::fabs(a - b) <= atol + rtol * std::fabs(b);
    if (!ok) return ::testing::AssertionFailure() << "element " << i << " is " << a << ", expected " << b;
  }
  return ::testing::AssertionSuccess();
}

/// Imports the case's model with the shapes of its data, binding non-float inputs (and inputs
/// the importer asks for) as constants, runs every data set and compares. When `exported` is
/// given, the imported graph is also exported there, imported again and checked the same way.
CaseResult run_case(fs::path const& dir, std::string const& op, std::optional<fs::path> const& exported = {}) {
  CaseResult r{dir.filename().string(), op, Status::failed, {}};
  try {
    ::onnx::ModelProto m;
    std::string bytes = onnx_detail::read_file_bytes(dir / "model.onnx");
    if (!m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) throw OnnxImportError("model.onnx does not parse");
    std::set<std::string> inits;
    for (auto const& t : m.graph().initializer()) inits.insert(t.name());
    std::vector<std::string> inputs;
    std::map<std::string, int> declared;  // element type of each tensor input
    for (auto const& vi : m.graph().input())
      if (!inits.count(vi.name())) {
        inputs.push_back(vi.name());
        if (vi.type().has_tensor_type()) declared[vi.name()] = vi.type().tensor_type().elem_type();
      }

    std::vector<fs::path> sets;
    for (auto const& e : fs::directory_iterator(dir))
      if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) sets.push_back(e.path());
    std::ranges::sort(sets);
    if (sets.empty()) throw OnnxImportError("no test data");

    for (fs::path const& set : sets) {
      std::map<std::string, ::onnx::TensorProto> given;
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        fs::path p = set / ("input_" + std::to_string(i) + ".pb");
        // Sequence and optional inputs are not TensorProtos; the importer refuses them.
        if (!fs::exists(p) || !declared.count(inputs[i])) continue;
        ::onnx::TensorProto t = read_onnx_tensor(p);
        // NumPy has no bfloat16: the suite stores such inputs as their uint16 bit patterns.
        if (t.data_type() == ::onnx::TensorProto::UINT16 && declared[inputs[i]] == ::onnx::TensorProto::BFLOAT16)
          t.set_data_type(::onnx::TensorProto::BFLOAT16);
        given[inputs[i]] = t;
      }
      // A case whose data contradicts its own model's static input shape is neither a pass
      // nor a failure of ours (the suite's CastLike cases feed a [1] tensor to a [3,4] input).
      for (auto const& vi : m.graph().input()) {
        auto it = given.find(vi.name());
        if (it == given.end() || !vi.type().tensor_type().has_shape()) continue;
        auto const& dims = vi.type().tensor_type().shape().dim();
        bool bad = dims.size() != it->second.dims_size();
        for (int d = 0; !bad && d < dims.size(); ++d) bad = dims[d].has_dim_value() && dims[d].dim_value() != it->second.dims(d);
        if (bad) {
          r.status = Status::bad_data;
          r.detail = "the data for input '" + vi.name() + "' does not have the model's static shape";
          return r;
        }
      }
      OnnxImportOptions opt;
      for (auto const& [name, t] : given) {
        if (t.data_type() == ::onnx::TensorProto::FLOAT) {
          std::vector<std::int64_t> dims(t.dims().begin(), t.dims().end());
          opt.input_shapes[name] = Shape(dims);
        } else {
          opt.constant_inputs[name] = t;
        }
      }
      // Node tests feed everything as graph inputs, even what real models hold as constants
      // (shapes, axes, Clip bounds); bind those the importer asks for.
      std::optional<ImportedOnnxModel> model;
      for (std::size_t attempt = 0; !model; ++attempt) {
        try {
          model = import_onnx_model(m, opt);
        } catch (OnnxConstantRequiredError const& e) {
          if (attempt > inputs.size() || !given.count(e.input) || opt.constant_inputs.count(e.input)) throw;
          opt.constant_inputs[e.input] = given[e.input];
          opt.input_shapes.erase(e.input);
        }
      }
      std::map<std::string, Tensor> feeds;
      for (auto const& name : model->input_names) feeds[name] = onnx_to_tensor(given.at(name));
      std::vector<Tensor> want;
      for (std::size_t i = 0; i < model->output_names.size(); ++i)
        want.push_back(onnx_to_tensor(read_onnx_tensor(set / ("output_" + std::to_string(i) + ".pb"))));
      auto compare = [&](ImportedOnnxModel const& im, std::string const& what) {
        auto out = testing::run_reference(im.graph, feeds);
        if (out.size() != want.size()) throw OnnxImportError(what + ": output count differs");
        for (std::size_t i = 0; i < out.size(); ++i)
          if (auto ok = close(out[i], want[i]); !ok) return what + set.filename().string() + " output '" + im.output_names[i] + "': " + ok.message();
        return std::string{};
      };
      if (r.detail = compare(*model, ""); !r.detail.empty()) return r;
      if (exported) {
        fs::path file = *exported / (r.name + ".onnx");
        export_onnx(model->graph, file, {.output_names = model->output_names});
        OnnxImportOptions again;
        for (auto const& name : model->input_names) again.input_shapes[name] = opt.input_shapes[name];
        if (r.detail = compare(import_onnx(file, again), "after export and re-import: "); !r.detail.empty()) return r;
      }
    }
    r.status = Status::passed;
  } catch (OnnxUnsupportedError const& e) {
    r.status = Status::unsupported;
    r.detail = e.what();
  } catch (std::exception const& e) {
    r.detail = e.what();
  }
  return r;
}

struct Tally {
  int passed = 0, failed = 0, unsupported = 0, bad_data = 0;
  void add(Status s) { (s == Status::passed ? passed : s == Status::failed ? failed : s == Status::unsupported ? unsupported : bad_data)++; }
};

void print_table(std::string const& title, std::vector<CaseResult> const& results, std::map<std::string, bool> const& claimed) {
  std::map<std::string, Tally> per_op;
  Tally total;
  for (auto const& c : results) {
    per_op[c.op].add(c.status);
    total.add(c.status);
  }
  std::ostringstream os;
  os << "\n" << title << "\n";
  os << std::left << std::setw(30) << "op" << std::right << std::setw(8) << "passed" << std::setw(8) << "failed" << std::setw(13) << "unsupported"
     << std::setw(10) << "bad data" << "\n";
  for (auto const& [op, t] : per_op) {
    auto it = claimed.find(op);
    std::string name = op + (it != claimed.end() && it->second ? " (import-time)" : "");
    os << std::left << std::setw(30) << name << std::right << std::setw(8) << t.passed << std::setw(8) << t.failed << std::setw(13)
       << t.unsupported << std::setw(10) << t.bad_data << "\n";
  }
  os << std::left << std::setw(30) << "total" << std::right << std::setw(8) << total.passed << std::setw(8) << total.failed
     << std::setw(13) << total.unsupported << std::setw(10) << total.bad_data << "\n";
  os << "unsupported cases (refused by the importer, with its reason) and cases with bad data:\n";
  for (auto const& c : results)
    if (c.status == Status::unsupported || c.status == Status::bad_data) os << "  " << c.name << ": " << c.detail << "\n";
  std::cout << os.str();
}

TEST(OnnxConformance, BackendNodeTestsOfEveryClaimedOp) {
  if (!fs::exists(testdata / "node")) GTEST_SKIP() << testdata / "node" << " is missing (Debian package libonnx-testdata)";
  auto claimed = supported_onnx_ops();
  std::vector<CaseResult> results;
  std::set<std::string> ops_with_cases;
  testing::ScratchDir scratch_folder("autograph_conformance");
  fs::path const& scratch = scratch_folder.path();
  std::vector<fs::path> exported;  // every passing case, exported again
  std::vector<fs::path> dirs;
  for (auto const& e : fs::directory_iterator(testdata / "node")) dirs.push_back(e.path());
  std::ranges::sort(dirs);
  for (auto const& dir : dirs) {
    ::onnx::ModelProto m;
    std::string bytes = onnx_detail::read_file_bytes(dir / "model.onnx");
    ASSERT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << dir;
    std::string op = case_op(dir.filename().string(), m, claimed);
    if (op.empty() || !claimed.count(op)) continue;
    results.push_back(run_case(dir, op, scratch));
    ops_with_cases.insert(op);
    if (results.back().status == Status::passed) exported.push_back(scratch / (results.back().name + ".onnx"));
    if (results.back().status == Status::failed) ADD_FAILURE() << results.back().name << " (" << op << "): " << results.back().detail;
  }
  print_table("ONNX backend node tests (libonnx-testdata), claimed ops; each passing case also passes after export and re-import",
              results, claimed);
  // Every re-exported model is valid ONNX.
  std::string report = testing::onnx_check(exported, scratch);
  if (report == "SKIP") std::cout << "onnx.checker not run on the " << exported.size() << " exported models: python3-onnx is missing\n";
  else {
    EXPECT_EQ(report, "") << "onnx.checker rejected exported models";
    if (report.empty()) std::cout << "onnx.checker (full_check) accepted all " << exported.size() << " exported models\n";
  }
  std::size_t passed = std::ranges::count_if(results, [](auto const& c) { return c.status == Status::passed; });
  EXPECT_GE(passed, 300u) << "far fewer node tests passed than the claimed ops have";
  // Every claimed graph op with node tests in this version of the suite has a passing case.
  for (auto const& op : ops_with_cases) {
    bool any = std::ranges::any_of(results, [&](auto const& c) { return c.op == op && c.status == Status::passed; });
    if (!claimed.at(op)) {
      EXPECT_TRUE(any) << op << " is claimed but none of its node tests passes";
    }
  }
}

TEST(OnnxConformance, PyTorchExportedModels) {
  auto claimed = supported_onnx_ops();
  std::vector<CaseResult> results;
  for (char const* sub : {"pytorch-converted", "pytorch-operator"}) {
    if (!fs::exists(testdata / sub)) GTEST_SKIP() << testdata / sub << " is missing (Debian package libonnx-testdata)";
    std::vector<fs::path> dirs;
    for (auto const& e : fs::directory_iterator(testdata / sub)) dirs.push_back(e.path());
    std::ranges::sort(dirs);
    for (auto const& dir : dirs) {
      results.push_back(run_case(dir, std::string(sub)));
      if (results.back().status == Status::failed) ADD_FAILURE() << sub << "/" << results.back().name << ": " << results.back().detail;
    }
  }
  print_table("PyTorch-exported models (libonnx-testdata pytorch-converted, pytorch-operator)", results, claimed);
  std::size_t passed = std::ranges::count_if(results, [](auto const& c) { return c.status == Status::passed; });
  EXPECT_GE(passed, 50u);
}

}  // namespace
}  // namespace autograph
