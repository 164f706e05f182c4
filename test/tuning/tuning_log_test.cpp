// The tuning log: records round-trip through their JSON lines; a second run reads the first's
// log, measures nothing it already knows and starts from its best; another device's records do
// not count; a corrupt line is refused naming the file and the line.
#include <autograph/tuning/tuner.hpp>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "tuning/synthetic_tuner.hpp"

namespace autograph::tuning {
namespace tuning_log_test {

using testing::SyntheticMatmul;

struct TempFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               ("autograph_tuning_log_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".jsonl");
  ~TempFile() { std::filesystem::remove(path); }
  static inline int counter = 0;
};

std::string error_of(auto&& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "no error";
}

TEST(TuningLog, ARecordRoundTripsThroughItsLine) {
  LogRecord r{"AMD EPYC 7B13", "attention", "b1 h8 s1050 d32", {{"block_q", 32}, {"block_k", 64}}, "bq32 bk64", 1.25e-4, "2026-11-27T10:50:03Z"};
  std::string line = TuningLog::to_line(r);
  EXPECT_EQ(line,
            R"({"device":"AMD EPYC 7B13","kernel":"attention","signature":"b1 h8 s1050 d32","knobs":{"block_q":32,"block_k":64},)"
            R"("config":"bq32 bk64","latency_s":0.000125,"time":"2026-11-27T10:50:03Z"})");
  auto back = TuningLog::parse_line(line, "here");
  EXPECT_EQ(back, r);
}

TEST(TuningLog, ASecondRunMeasuresNothingItKnowsAndStartsFromTheBest) {
  TempFile file;
  SyntheticMatmul::Problem p;
  std::set<std::string> first_measured, second_measured;
  auto measuring_into = [](std::set<std::string>& into) -> testing::SyntheticMeasureFactory {
    return [&into](SyntheticMatmul::Problem const& q) -> testing::SyntheticMeasure {
      return [&into, q](SyntheticMatmul::Config const& c) {
        into.insert(SyntheticMatmul::to_string(c));
        return SyntheticMatmul::latency(q, c);
      };
    };
  };
  auto log = TuningLog::open(file.path);  // no file yet: an empty log
  EXPECT_TRUE(log.records().empty());
  auto first = testing::tune_synthetic({{p}}, 100, measuring_into(first_measured), {.device = "test CPU", .log = &log});
  EXPECT_EQ(first_measured.size(), 100u);

  auto reread = TuningLog::open(file.path);
  ASSERT_EQ(reread.records().size(), 100u);
  // The default, a point of the grid, is logged with its knobs like every other measurement.
  EXPECT_EQ(reread.records().front().config, "tm32 tn32 tk32 v1 u1 t1 o0");
  EXPECT_EQ(reread.records().front().knobs.size(), 7u);
  EXPECT_EQ(reread.find("test CPU", "synthetic_matmul", "m1024 n1024 k1024").size(), 100u);
  auto second = testing::tune_synthetic({{p}}, 50, measuring_into(second_measured), {.device = "test CPU", .log = &reread, .seed = 2});
  EXPECT_EQ(second[0].reused, 100u);
  EXPECT_EQ(second[0].trials, 50u);
  EXPECT_EQ(second_measured.size(), 50u);
  for (auto const& c : second_measured) EXPECT_FALSE(first_measured.contains(c)) << c << " was measured again";
  EXPECT_EQ(second[0].default_latency_s, first[0].default_latency_s);  // read, not measured again
  EXPECT_LE(second[0].best_so_far.front(), first[0].best_latency_s);   // it starts from the first run's best
  EXPECT_EQ(TuningLog::open(file.path).records().size(), 150u);

  // Another device's measurements are not this one's: the default is measured again.
  std::set<std::string> other;
  auto third = testing::tune_synthetic({{p}}, 1, measuring_into(other), {.device = "other CPU", .log = &reread});
  EXPECT_EQ(third[0].reused, 0u);
  EXPECT_EQ(other, std::set<std::string>{SyntheticMatmul::to_string(SyntheticMatmul::default_config(p))});
}

TEST(TuningLog, ACorruptLineIsRefusedNamingTheFileAndLine) {
  TempFile file;
  LogRecord r{"cpu", "synthetic_matmul", "m1024 n1024 k1024", {{"tile_m", 32}}, "tm32", 1e-3, "2026-11-27T10:50:03Z"};
  {
    std::ofstream out(file.path);
    out << TuningLog::to_line(r) << "\n\n" << R"({"device":"cpu","kernel":"k","signature":"s","knobs":{},"config":"c","time":"t"})" << "\n";
  }
  EXPECT_EQ(error_of([&] { TuningLog::open(file.path); }), "tuning log '" + file.path.string() + "' line 3: \"latency_s\" must be a number");
  {
    std::ofstream out(file.path);
    out << TuningLog::to_line(r) << "\n" << R"({"device":"cpu", "kern)" << "\n";
  }
  auto e = error_of([&] { TuningLog::open(file.path); });
  EXPECT_TRUE(e.starts_with("tuning log '" + file.path.string() + "' line 2: not valid JSON (")) << e;
  {
    std::ofstream out(file.path);
    out << R"({"device":"cpu","kernel":"k","signature":"s","knobs":{"a":1.5},"config":"c","latency_s":1,"time":"t"})" << "\n";
  }
  EXPECT_EQ(error_of([&] { TuningLog::open(file.path); }), "tuning log '" + file.path.string() + "' line 1: knob \"a\" must be an integer");
}

}  // namespace tuning_log_test
}  // namespace autograph::tuning
