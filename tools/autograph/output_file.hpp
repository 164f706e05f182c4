#pragma once
// Files the tool writes (--report, --dot, --trace, -o): every command checks them before its
// long work starts, and writes them atomically.
//
// Why check first: `optimize` runs for minutes; finding only then that --report names a folder
// that does not exist wastes the run. Why atomically (a temporary file beside the target, then
// rename): a failure half-way (disk full, an exporter error) must never leave a partial file
// that looks like a result, nor destroy the file that was there before.
#include <autograph/core/error.hpp>

#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

namespace autograph::cli {

/// A file named by `option` on the command line. `given` tells `-o ''` (an error) from no -o.
struct OutputFile {
  std::string option;  // as errors name it: "--report", "-o"
  std::string path;
  bool given = false;

  explicit OutputFile(std::string option_name) : option(std::move(option_name)) {}

  bool wanted() const { return given; }

  /// Throws Error unless the file can be created: a non-empty name, not a folder, in a folder
  /// that exists and is writable. Does nothing when the option was not given.
  void check() const {
    if (!given) return;
    namespace fs = std::filesystem;
    auto fail = [&](std::string const& why) { return Error(option + " '" + path + "': " + why); };
    if (path.empty()) throw fail("the file name is empty");
    fs::path p(path);
    std::error_code ec;
    if (!p.has_filename() || fs::is_directory(p, ec)) throw fail("is a folder; give a file name");
    fs::path folder = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (!fs::exists(folder, ec)) throw fail("folder '" + folder.string() + "' does not exist");
    if (!fs::is_directory(folder, ec)) throw fail("'" + folder.string() + "' is not a folder");
    if (::access(folder.c_str(), W_OK) != 0) throw fail("cannot write into folder '" + folder.string() + "': " + std::strerror(errno));
  }

  /// Writes the file: `fill` streams the contents into a temporary file beside it, which then
  /// replaces it. Throws Error (and leaves no file behind) when anything fails, `fill` included.
  void write(std::function<void(std::ostream&)> const& fill) const {
    check();
    namespace fs = std::filesystem;
    fs::path target(path);
    // O_EXCL reserves a name no other process uses; mode 0666 lets the umask decide, so the
    // file ends with the permissions a plain write would give it.
    fs::path tmp;
    for (int attempt = 0;; ++attempt) {
      tmp = target;
      tmp += ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(attempt);
      int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0666);
      if (fd >= 0) {
        ::close(fd);
        break;
      }
      if (errno != EEXIST || attempt == 100) throw Error(option + " '" + path + "': cannot create " + tmp.string() + ": " + std::strerror(errno));
    }
    try {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw Error("cannot open " + tmp.string());
      fill(out);
      out.close();
      if (!out) throw Error("write failed: " + std::string(std::strerror(errno)));
      std::error_code ec;
      fs::rename(tmp, target, ec);
      if (ec) throw Error("cannot rename " + tmp.string() + " to it: " + ec.message());
    } catch (std::exception const& e) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw Error(option + " '" + path + "': not written: " + e.what());
    }
  }
};

/// Declares the option `flags` (e.g. "-o,--output") that names `file`.
inline CLI::Option* add_output_option(CLI::App& app, std::string const& flags, OutputFile& file, std::string const& help) {
  return app.add_option_function<std::string>(
      flags,
      [&file](std::string const& path) {
        file.path = path;
        file.given = true;
      },
      help)->type_name("FILE");
}

}  // namespace autograph::cli
