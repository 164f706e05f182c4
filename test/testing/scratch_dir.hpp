#pragma once
// A test's files in a folder of their own under the system's temp folder, gone when the test
// is: a run of the suite leaves nothing behind in /tmp.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace autograph::testing {

/// A fresh empty folder, removed with everything in it when the object goes. Its name carries
/// the process id and a count, so concurrent tests (ctest -j) never share one.
class ScratchDir {
 public:
  explicit ScratchDir(std::string const& prefix = "autograph_test") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;  // a destructor must not throw; a folder left behind is harmless
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(ScratchDir const&) = delete;
  ScratchDir& operator=(ScratchDir const&) = delete;
  std::filesystem::path const& path() const { return path_; }
  std::string operator/(std::string const& name) const { return (path_ / name).string(); }
  /// `name` in the folder, with an earlier test's file of that name removed.
  std::filesystem::path fresh(std::string const& name) const {
    std::filesystem::remove(path_ / name);
    return path_ / name;
  }
  /// Names of the entries in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (auto const& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace autograph::testing
