// A seeded fuzz test of the `autograph` command line (issue 12). Command lines are drawn from a
// grammar of the real subcommands and options, each value from a pool of valid, invalid and
// borderline ones (empty, negative, zero, NaN, infinity, huge, not a number, bad shapes, output
// paths into missing folders or onto folders, empty / truncated / random / folder input files).
// Every run must end with status 0 or 1, never a signal, a time-out or "unexpected error"; a
// refusal must say why on stderr and leave no file behind (no partial output, no temporary
// file); a success must leave every file it names, whole.
//
// Each value also says what the tool must do with it, so that silent successes are caught too:
// a command line with a value that is never valid must be refused, one made only of valid values
// must succeed, and anything else (a truncated model that may still parse, a huge but
// representable batch) may go either way but must still keep the rules above.
//
// CommandLinesTheFuzzingFoundFaultsWith keeps the faults found this way as fixed cases.
//
// Reproduce or extend: AUTOGRAPH_FUZZ_SEED=<seed> AUTOGRAPH_FUZZ_RUNS=<n> ./build/test/tools_tests --gtest_filter='CliFuzz.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <regex>
#include <set>

#include "run_tool.hpp"

namespace autograph::testing {
namespace {

namespace fs = std::filesystem;

/// What the tool must do with a value or a whole command line.
enum class Expect { accept, refuse, either };

/// A refusal anywhere refuses the whole line; otherwise one borderline value makes it borderline.
Expect combine(Expect a, Expect b) {
  if (a == Expect::refuse || b == Expect::refuse) return Expect::refuse;
  if (a == Expect::either || b == Expect::either) return Expect::either;
  return Expect::accept;
}

char const* to_string(Expect e) { return e == Expect::accept ? "accept" : e == Expect::refuse ? "refuse" : "either"; }

/// The values an option may take, by what the tool must do with them.
struct Pool {
  std::vector<std::string> accept, refuse, either;
};

// Values no count, seed or duration may take.
std::vector<std::string> const not_numbers{"", "nan", "inf", "-inf", "1e300", "99999999999999999999", "1.5", "abc", "0x10", "+2", " 2", "2 ", "-0"};

std::vector<std::string> operator+(std::vector<std::string> a, std::vector<std::string> const& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A positive count (--batch, --resolution, --streams). Counts past any real model's are legal;
// whether the tool can build or run with them depends on the command, so they are borderline.
Pool const count_pool{{"1", "2"}, not_numbers + std::vector<std::string>{"0", "-1"}, {"99999999999", "9223372036854775807"}};
Pool const resolution_pool{{"32", "40"}, not_numbers + std::vector<std::string>{"0", "-1", "1", "24"}, {"99999999999"}};
// A 64-bit seed: a negative or out-of-range seed must be refused, not wrapped.
Pool const seed_pool{{"0", "7", "18446744073709551615"}, {"", "-1", "abc", "1.5", "nan", "99999999999999999999", "18446744073709551616"}, {}};
// strtod skips leading blanks, so " 2" is borderline here.
Pool const seconds_pool{{"0.5", "2"}, {"", "0", "-5", "nan", "inf", "-inf", "1e400", "abc", "2s"}, {"1e300", "1e-300", " 2"}};
Pool const trials_pool{{"1", "2"}, {"", "0", "-1", "1001", "nan", "abc", "1.5", "99999999999999999999"}, {}};
Pool const device_pool{{"h100", "H200", "a100", "v100", "2080ti", "rtx2080ti", "RTX 2080 Ti"}, {"", "tpu", "h100x", "nan", "-1"}, {}};
Pool const schedule_pool{{"sequential", "greedy", "nimble", "ios"}, {"", "random", "NIMBLE", "nimble,ios"}, {}};
Pool const configs_pool{{"sequential", "autograph", "sequential,autograph", "nimble", "taso+nimble", "metaflow", "sequential,,autograph"},
                        {"", ",", ",,", "xla", "sequential,xla", "AUTOGRAPH"},
                        {}};
Pool const runtime_pool{{"sim"}, {"", "cuda", "SIM"}, {}};
// Built-in models: only the small one, so that valid runs take a fraction of a second.
Pool const model_pool{{"squeezenet1_1"}, {"", "nosuchnet", "SQUEEZENET1_1", "squeezenet1_1 ", "../squeezenet1_1"}, {}};

/// An ONNX model the tool may read, with its input's name and shape ("image", "1x3x32x32").
struct OnnxFixture {
  std::string path, input, dims;
};

/// Files every run reads: written once, in their own folder, which the runs must not change.
struct Fixtures {
  ScratchDir dir;
  std::vector<OnnxFixture> models;  // valid ONNX models
  std::vector<std::string> bad_onnx, truncated_onnx;
  std::vector<std::string> taso, bad_taso, truncated_taso;
};

void write_file(std::string const& path, std::string const& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

std::string random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

/// The whole command line of a run, as a person would type it again.
std::string shell_line(std::vector<std::string> const& args) {
  std::string s = "autograph";
  for (auto const& a : args) s += " '" + a + "'";
  return s;
}

class Generator {
 public:
  Generator(std::uint64_t seed, Fixtures const& f, ScratchDir const& run_dir) : rng_(seed), f_(f), dir_(run_dir) {}

  struct Line {
    std::vector<std::string> args;
    Expect expect = Expect::accept;
    std::vector<std::string> outputs;  // files a success writes, relative to the run's folder
  };

  Line next() {
    line_ = {};
    std::size_t which = below(100);
    if (which < 12) models();
    else if (which < 27) schedule();
    else if (which < 55) optimize();
    else if (which < 67) import();
    else if (which < 79) run();
    else if (which < 89) export_model();
    else if (which < 97) verify_rules();
    else top_level();
    noise();
    return line_;
  }

 private:
  std::mt19937_64 rng_;
  Fixtures const& f_;
  ScratchDir const& dir_;
  Line line_;
  std::string last_value_option_;  // an option that takes a value, for repeating it

  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }
  bool chance(double p) { return static_cast<double>(rng_() % 10000) < p * 10000; }
  template <class T>
  T const& one_of(std::vector<T> const& v) { return v[below(v.size())]; }

  void add(std::vector<std::string> const& tokens, Expect e) {
    line_.args.insert(line_.args.end(), tokens.begin(), tokens.end());
    line_.expect = combine(line_.expect, e);
  }
  /// Mostly valid values (so that whole command lines get through and do the work), else any
  /// invalid or borderline one.
  std::pair<std::string, Expect> draw(Pool const& p) {
    if (chance(0.8)) return {one_of(p.accept), Expect::accept};
    // Borderline values are few but find the deepest faults (huge counts reach the allocator).
    if (!p.either.empty() && chance(0.4)) return {one_of(p.either), Expect::either};
    return {one_of(p.refuse), Expect::refuse};
  }
  void option(std::string const& name, Pool const& p, double probability) {
    if (!chance(probability)) return;
    auto [value, e] = draw(p);
    add({name, value}, e);
    last_value_option_ = name;
  }
  void flag(std::string const& name, double probability) {
    if (chance(probability)) add({name}, Expect::accept);
    if (chance(0.05)) add({name}, Expect::accept);  // a flag given twice is still the flag
  }
  /// An output file option: a new file, an existing file to replace, a file in a subfolder, or
  /// a path that cannot be written (no name, a missing folder, a folder, a file as a folder).
  void output(std::string const& name, std::string const& ext, double probability, bool required = false) {
    if (!required && !chance(probability)) return;
    if (required && chance(0.05)) {
      line_.expect = Expect::refuse;  // a required output left out
      return;
    }
    last_value_option_ = name;
    if (chance(0.6)) {
      std::string rel = one_of(std::vector<std::string>{"out" + name + ext, "existing.txt", "existing_dir/out" + name + ext});
      add({name, chance(0.5) ? rel : dir_ / rel}, Expect::accept);
      line_.outputs.push_back(rel);
      return;
    }
    std::string bad = one_of(std::vector<std::string>{"", "missing/out" + ext, "existing_dir", "existing_dir/", "existing.txt/out" + ext, ".", "/"});
    add({name, bad.empty() || bad == "/" ? bad : (chance(0.5) ? bad : dir_ / bad)}, Expect::refuse);
  }
  /// An ONNX file to read: returns the valid model chosen, or nullptr for a malformed file.
  OnnxFixture const* onnx_file() {
    std::size_t i = below(10);
    if (i < 6) {
      auto const& m = one_of(f_.models);
      add({m.path}, Expect::accept);
      return &m;
    }
    if (i < 8) add({one_of(f_.bad_onnx)}, Expect::refuse);
    else add({one_of(f_.truncated_onnx)}, Expect::either);  // cut at a field boundary it may still parse
    return nullptr;
  }
  /// --input specs for `model` (nullptr: a malformed file, whose own error comes first).
  void input_specs(OnnxFixture const* model) {
    std::string name = model ? model->input : "x", dims = model ? model->dims : "1x3x32x32";
    std::string commas = dims;
    std::ranges::replace(commas, 'x', ',');
    Pool specs{{name + "=" + dims, name + "=" + commas},
               {"", name + "=", "=" + dims, name, name + "=0x4", name + "=1x3x100000x100000", name + "=1x-3", name + "=1x1x1x1x1x1x1x1x1",
                name + "=99999999999999999999", name + "=1x3xx32", name + "=abc", "nosuch=" + dims, name + "=" + dims + "x1"},
               {}};
    std::size_t n = chance(0.5) ? 0 : 1 + below(2);
    for (std::size_t k = 0; k < n; ++k) {
      auto [spec, e] = draw(specs);
      if (k > 0 && e == Expect::accept) e = Expect::refuse;  // the same input given twice
      add({"--input", spec}, e);
    }
  }

  void models() {
    add({"models"}, Expect::accept);
    bool named = chance(0.7);
    if (named) {
      auto [m, e] = draw(model_pool);
      add({m}, e);
    }
    flag("--json", 0.4);
    option("--batch", count_pool, 0.3);
    // Without a name every model is built: a resolution that suits one may be too small for another.
    std::size_t before = line_.args.size();
    Expect kept = line_.expect;
    option("--resolution", resolution_pool, 0.3);
    if (!named && line_.args.size() > before && line_.expect == Expect::accept) line_.expect = combine(kept, Expect::either);
    option("--seed", seed_pool, 0.2);
  }

  void schedule() {
    add({"schedule"}, Expect::accept);
    if (chance(0.95)) option("--model", model_pool, 1.0);
    else line_.expect = Expect::refuse;  // --model is required
    option("--schedule", schedule_pool, 0.7);
    option("--device", device_pool, 0.4);
    option("--streams", count_pool, 0.3);
    option("--batch", count_pool, 0.3);
    option("--resolution", resolution_pool, 0.3);
    output("--dot", ".dot", 0.3);
    output("--trace", ".json", 0.3);
  }

  void optimize() {
    add({"optimize"}, Expect::accept);
    // Exactly one of --model and an ONNX file.
    std::size_t source = below(20);
    bool has_model = source < 9 || source == 18, has_file = (source >= 9 && source < 18) || source == 18;
    if (source >= 18) line_.expect = Expect::refuse;  // both, or neither
    OnnxFixture const* model = nullptr;
    if (has_model) option("--model", model_pool, 1.0);
    if (has_file) model = onnx_file();
    if (has_file && chance(0.4)) input_specs(model);
    if (has_model && chance(0.05)) add({"--input", "image=1x3x32x32"}, Expect::refuse);  // --input is for ONNX files
    if (chance(0.3)) {
      auto [b, e] = draw(count_pool);
      add({"--batch", b}, has_model ? e : Expect::refuse);  // --batch is for built-in models
    }
    if (chance(0.2)) {
      // Not the borderline side: verifying would allocate images of that side.
      auto [side, e] = draw({resolution_pool.accept, resolution_pool.refuse, {}});
      add({"--resolution", side}, has_model ? e : Expect::refuse);  // so is --resolution
    }
    // A configuration list most of the time: all six on squeezenet1_1 at 224 take a second.
    option("--configs", configs_pool, has_model ? 0.85 : 0.5);
    option("--device", device_pool, 0.3);
    option("--runtime", runtime_pool, 0.15);
    option("--time-limit", seconds_pool, 0.3);
    option("--seed", seed_pool, 0.2);
    if (chance(0.15)) taso_file();
    flag("--no-verify", 0.2);
    output("--report", ".json", 0.3);
    output("--dot", ".dot", 0.2);
    output("-o", ".onnx", 0.3);
  }

  void taso_file() {
    std::size_t i = below(10);
    if (i < 4 && !f_.taso.empty()) add({"--taso", one_of(f_.taso)}, Expect::accept);
    else if (i < 8 || f_.truncated_taso.empty()) add({"--taso", one_of(f_.bad_taso)}, Expect::refuse);
    else add({"--taso", one_of(f_.truncated_taso)}, Expect::either);
    last_value_option_ = "--taso";
  }

  void import() {
    add({"import"}, Expect::accept);
    if (chance(0.95)) input_specs(onnx_file());
    else line_.expect = Expect::refuse;  // the model file is required
    output("--dot", ".dot", 0.3);
  }

  void run() {
    add({"run"}, Expect::accept);
    if (chance(0.95)) input_specs(onnx_file());
    else line_.expect = Expect::refuse;
    option("--seed", seed_pool, 0.3);
  }

  void export_model() {
    add({"export-model"}, Expect::accept);
    if (chance(0.95)) {
      auto [m, e] = draw(model_pool);
      add({m}, e);
    } else {
      line_.expect = Expect::refuse;  // the model name is required
    }
    output("-o", ".onnx", 1.0, /*required=*/true);
    option("--batch", count_pool, 0.3);
    option("--resolution", resolution_pool, 0.6);
    option("--weight-seed", seed_pool, 0.2);
  }

  void verify_rules() {
    add({"verify-rules"}, Expect::accept);
    if (chance(0.6)) taso_file();
    option("--trials", trials_pool, 0.6);
    option("--seed", seed_pool, 0.2);
    flag("--strict-kernels", 0.2);
    // With TASO's own semantics two of TASO's rules fail verification, as they should (exit 1,
    // "FAILED" on stdout): a result, not a refusal.
    if (chance(0.2)) {
      add({"--as-taso"}, std::ranges::find(line_.args, "--taso") != line_.args.end() ? Expect::either : Expect::accept);
      if (chance(0.05)) add({"--as-taso"}, Expect::accept);
    }
  }

  void top_level() {
    std::size_t i = below(4);
    if (i == 0) add({}, Expect::refuse);  // no subcommand
    else if (i == 1) add({"optimise", "--model", "squeezenet1_1"}, Expect::refuse);
    else if (i == 2) add({"--help"}, Expect::accept);
    else add({"--version"}, Expect::refuse);
  }

  /// Unknown flags, stray words, and a value option given twice: each must be refused.
  void noise() {
    if (line_.args.empty() || line_.args[0] == "--help") return;
    if (chance(0.06)) add({one_of(std::vector<std::string>{"--bogus", "--bogus=1", "-z", "--batchsize", "--model-name"})}, Expect::refuse);
    if (chance(0.04)) add({"stray"}, Expect::refuse);
    if (!last_value_option_.empty() && chance(0.06)) {
      // Repeat the option with its last value: CLI11 takes one value at most.
      auto it = std::ranges::find(line_.args, last_value_option_);
      if (it != line_.args.end() && it + 1 != line_.args.end()) add({last_value_option_, *(it + 1)}, Expect::refuse);
    }
  }
};

/// Every path under `root`, relative to it, sorted.
std::vector<std::string> listing(fs::path const& root) {
  std::vector<std::string> names;
  for (auto const& e : fs::recursive_directory_iterator(root)) names.push_back(fs::relative(e.path(), root).string());
  std::ranges::sort(names);
  return names;
}

std::uint64_t env_or(char const* name, std::uint64_t fallback) {
  char const* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

/// Why a run broke the rules, or "" when it kept them. `before` is the run folder's listing
/// before the run.
std::string check(ToolRun const& r, Generator::Line const& line, ScratchDir const& dir, std::vector<std::string> const& before) {
  std::vector<std::string> why;
  if (r.exit_code == 124) why.push_back("ran past the time limit");
  if (r.signal != 0) why.push_back("killed by signal " + std::to_string(r.signal));
  if (r.err.find("unexpected error") != std::string::npos) why.push_back("an unexpected error");
  if (r.signal == 0 && r.exit_code != 0 && r.exit_code != 1 && r.exit_code != 124) why.push_back("exit status " + std::to_string(r.exit_code));
  bool refused = r.exit_code != 0;
  if (line.expect == Expect::refuse && !refused) why.push_back("accepted a command line it must refuse");
  if (line.expect == Expect::accept && refused) why.push_back("refused a valid command line");
  auto after = listing(dir.path());
  if (refused) {
    // A clear message: ours ("autograph: error: ...") or CLI11's, which ends with the hint.
    bool rules_failed = !line.args.empty() && line.args[0] == "verify-rules" && r.out.find("FAILED") != std::string::npos;  // its finding, on stdout
    if (r.err.find("error") == std::string::npos && r.err.find("Run with --help") == std::string::npos && !rules_failed)
      why.push_back("refused without a message on stderr");
    if (after != before) why.push_back("left files behind after refusing");
    if (read_all(dir / "existing.txt") != "keep me\n") why.push_back("changed existing.txt although it refused");
  } else {
    std::set<std::string> allowed(before.begin(), before.end());
    for (auto const& out : line.outputs) {
      allowed.insert(out);
      std::error_code ec;
      if (!fs::is_regular_file(dir.path() / out) || fs::file_size(dir.path() / out, ec) == 0) why.push_back("did not write " + out);
    }
    for (auto const& name : after)
      if (!allowed.contains(name)) why.push_back("left " + name + " beside its results");
    // Statistics of a model too large for 64-bit counts must not wrap to negative numbers.
    static std::regex const negative_count(R"re((MACs|FLOPs) +-\d|"(macs|flops)": -\d)re");
    if (!line.args.empty() && line.args[0] == "models" && std::regex_search(r.out, negative_count))
      why.push_back("printed a negative MAC or FLOP count");
  }
  std::string s;
  for (auto const& w : why) s += (s.empty() ? "" : "; ") + w;
  return s;
}

class CliFuzz : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    f_ = new Fixtures;
    auto& f = *f_;
    std::mt19937_64 rng(12);
    // A real ONNX model, written by the tool itself at a small resolution so that runs on it are fast.
    std::string squeezenet = f.dir / "squeezenet.onnx";
    auto r = run_tool({"export-model", "squeezenet1_1", "-o", squeezenet, "--resolution", "32"}, f.dir);
    ASSERT_EQ(r.exit_code, 0) << r.command << "\n" << r.err;
    f.models.push_back({squeezenet, "image", "1x3x32x32"});
    std::string relu = "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";  // ONNX's own test data, when installed
    if (fs::exists(relu)) f.models.push_back({relu, "x", "3x4x5"});

    std::string bytes = read_all(squeezenet);
    for (std::size_t cut : {std::size_t{1}, std::size_t{64}, bytes.size() / 2, bytes.size() - 1}) {
      std::string path = f.dir / ("truncated_" + std::to_string(cut) + ".onnx");
      write_file(path, bytes.substr(0, cut));
      f.truncated_onnx.push_back(path);
    }
    write_file(f.dir / "empty.onnx", "");
    write_file(f.dir / "random.bin", random_bytes(rng, 4096));
    write_file(f.dir / "text.onnx", "ir_version: 8\ngraph { name: \"not binary\" }\n");
    fs::create_directory(f.dir / "folder.onnx");
    f.bad_onnx = {"", f.dir / "missing.onnx", f.dir / "empty.onnx", f.dir / "random.bin", f.dir / "text.onnx", f.dir / "folder.onnx"};

    // TASO's rule file from the shared data, when this checkout has it.
    fs::path rules = fs::path(__FILE__).parent_path() / "../../../shared/data/taso/graph_subst.pb";
    if (fs::exists(rules)) {
      f.taso.push_back(fs::canonical(rules).string());
      std::string pb = read_all(rules);
      write_file(f.dir / "truncated_rules.pb", pb.substr(0, pb.size() / 3));
      f.truncated_taso.push_back(f.dir / "truncated_rules.pb");
    }
    write_file(f.dir / "empty.pb", "");
    f.bad_taso = {"", f.dir / "missing.pb", f.dir / "empty.pb", f.dir / "folder.onnx", f.dir / "random.bin", f.dir / "text.onnx", squeezenet};
  }
  static void TearDownTestSuite() {
    delete f_;
    f_ = nullptr;
  }
  static Fixtures* f_;
};
Fixtures* CliFuzz::f_ = nullptr;

TEST_F(CliFuzz, RandomCommandLinesAreRefusedCleanlyOrSucceedWhole) {
  ASSERT_TRUE(f_ && !f_->models.empty()) << "the setup could not export a model";
  std::uint64_t const seed = env_or("AUTOGRAPH_FUZZ_SEED", 20240612);
  std::size_t const runs = env_or("AUTOGRAPH_FUZZ_RUNS", 1000);
  std::printf("fuzzing the command line: seed %llu, %zu runs (AUTOGRAPH_FUZZ_SEED, AUTOGRAPH_FUZZ_RUNS)\n",
              static_cast<unsigned long long>(seed), runs);
  auto fixtures_before = listing(f_->dir.path());
  std::size_t failures = 0, refused = 0, expected[3] = {0, 0, 0};
  for (std::size_t i = 0; i < runs; ++i) {
    ScratchDir dir;
    fs::create_directory(dir.path() / "existing_dir");
    write_file(dir / "existing.txt", "keep me\n");
    auto before = listing(dir.path());
    // One generator per run, seeded from the seed and the run's number (spread apart, so that
    // seed s + 1 does not replay seed s shifted by one run).
    Generator gen(seed * 0x9e3779b97f4a7c15ull + i, *f_, dir);
    auto line = gen.next();
    ToolRun r = run_tool(line.args, dir, 60);
    refused += r.exit_code != 0;
    ++expected[static_cast<int>(line.expect)];
    std::string why = check(r, line, dir, before);
    if (why.empty()) continue;
    if (++failures <= 25)
      ADD_FAILURE() << "seed " << seed << ", run " << i << " (expected: " << to_string(line.expect) << "): " << why << "\n  in "
                    << dir.path().string() << ": " << shell_line(line.args) << "\n  exit " << r.exit_code << ", signal " << r.signal
                    << "\n  stderr: " << r.err.substr(0, 600);
  }
  std::printf("%zu runs (%zu valid, %zu invalid, %zu borderline): %zu refused, %zu broke the rules\n", runs, expected[0], expected[1],
              expected[2], refused, failures);
  EXPECT_EQ(failures, 0u) << "seed " << seed << ": the first 25 are reported above";
  EXPECT_EQ(listing(f_->dir.path()), fixtures_before) << "a run changed the files it was given to read";
}

// Command lines the fuzzing (and probing around what it found) broke the rules with, kept as
// fixed cases so that each is checked on every run whatever the seed. All are valid-looking
// values the tool's checks let through; the faults are deeper (allocation, overflow, wrapping).
TEST_F(CliFuzz, CommandLinesTheFuzzingFoundFaultsWith) {
  ASSERT_TRUE(f_ && !f_->models.empty()) << "the setup could not export a model";
  std::string relu = f_->models.back().path;
  struct Case {
    std::vector<std::string> args;
    Expect expect;
  };
  std::vector<Case> cases{
      // 99999999999 streams are allocated up front: "unexpected error: std::bad_alloc", exit 2.
      {{"schedule", "--model", "squeezenet1_1", "--schedule", "greedy", "--streams", "99999999999"}, Expect::either},
      // The reference executor allocates the verification input: "unexpected error: std::bad_alloc".
      {{"optimize", "--model", "squeezenet1_1", "--batch", "99999999999", "--configs", "autograph"}, Expect::either},
      // ViT's position embedding grows with the resolution; its random weights cannot be allocated.
      {{"export-model", "vit_b_16", "--resolution", "1000000", "-o", "out.onnx"}, Expect::either},
      // The MAC count overflows int64 and is printed negative.
      {{"models", "squeezenet1_1", "--batch", "9223372036854775807"}, Expect::either},
      {{"models", "squeezenet1_1", "--resolution", "99999999999", "--json"}, Expect::either},
      // Building every model at batch 99999999999: "unexpected error: std::bad_alloc".
      {{"models", "--json", "--batch", "99999999999"}, Expect::either},
      // A folder given as the ONNX file: "unexpected error: basic_filebuf::underflow error reading
      // the file: Is a directory" (import and run refuse it through CLI11's ExistingFile).
      {{"optimize", f_->dir / "folder.onnx"}, Expect::refuse},
      // Empty values taken as "not given": every model is listed, the ONNX file is optimized,
      // the search runs without TASO's rules, the seed is 0.
      {{"models", ""}, Expect::refuse},
      {{"optimize", "--model", "", relu, "--configs", "sequential"}, Expect::refuse},
      {{"optimize", "--model", "squeezenet1_1", "--configs", "sequential", "--taso", ""}, Expect::refuse},
      {{"run", relu, "--seed", ""}, Expect::refuse},
      // 64-bit seeds: a negative one and one past 2^64 - 1 are taken as 2^64 - 1 without a word.
      {{"run", relu, "--seed", "-1"}, Expect::refuse},
      {{"verify-rules", "--trials", "1", "--seed", "18446744073709551616"}, Expect::refuse},
  };
  for (auto const& c : cases) {
    ScratchDir dir;
    fs::create_directory(dir.path() / "existing_dir");
    write_file(dir / "existing.txt", "keep me\n");
    auto before = listing(dir.path());
    Generator::Line line{c.args, c.expect, {}};
    if (c.args[0] == "export-model") line.outputs = {"out.onnx"};
    ToolRun r = run_tool(c.args, dir, 60);
    std::string why = check(r, line, dir, before);
    EXPECT_EQ(why, "") << shell_line(c.args) << "\n  exit " << r.exit_code << ", signal " << r.signal << "\n  stderr: " << r.err.substr(0, 600);
  }
}

}  // namespace
}  // namespace autograph::testing
