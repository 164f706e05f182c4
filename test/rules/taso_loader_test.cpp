// load_taso_rules refuses files that would silently give a search without TASO's rules: an
// empty file and a directory (both once read as zero rules), and a collection of zero rules.
#include <gtest/gtest.h>

#include <autograph/rules/taso_loader.hpp>

#include <filesystem>
#include <fstream>

#include "testing/scratch_dir.hpp"

namespace autograph::rules {
namespace {

using autograph::testing::ScratchDir;

void expect_error(std::filesystem::path const& file, std::string const& says) {
  try {
    auto rules = load_taso_rules(file);
    FAIL() << file << " loaded as " << rules.size() << " rules";
  } catch (Error const& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
  }
}

TEST(TasoLoader, EmptyFileIsAnError) {
  ScratchDir dir("taso_loader_test");
  std::ofstream(dir.path() / "empty.pb").close();
  expect_error(dir.path() / "empty.pb", "is empty");
}

TEST(TasoLoader, DirectoryIsAnError) {
  ScratchDir dir("taso_loader_test");
  expect_error(dir.path(), "is a directory");
}

TEST(TasoLoader, CollectionOfZeroRulesIsAnError) {
  ScratchDir dir("taso_loader_test");
  // A valid message with one unknown varint field (number 5) and no `rule` field.
  std::ofstream(dir.path() / "none.pb", std::ios::binary) << std::string("\x28\x01", 2);
  expect_error(dir.path() / "none.pb", "holds no rules");
}

}  // namespace
}  // namespace autograph::rules
