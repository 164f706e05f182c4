#pragma once
// Runs the built `autograph` tool (AUTOGRAPH_CLI) as a user would, in a scratch folder, with
// its stdout and stderr captured and a time limit, for tests of its behaviour from outside.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../testing/scratch_dir.hpp"

namespace autograph::testing {

struct ToolRun {
  int exit_code = -1;   // the tool's exit status; 124: it ran past the limit
  int signal = 0;       // the signal that killed it, 0 when it exited
  std::string out, err;
  std::string command;  // as run, for failure messages
};

inline std::string read_all(std::filesystem::path const& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Runs `autograph args...` in `dir` under `timeout`, stdout and stderr into files there.
inline ToolRun run_tool(std::vector<std::string> const& args, ScratchDir const& dir, int timeout_s = 60) {
  ToolRun r;
  std::string limit = std::to_string(timeout_s);
  std::vector<std::string> argv_s{"timeout", "--signal=KILL", limit, AUTOGRAPH_CLI};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  for (auto const& a : argv_s) r.command += (r.command.empty() ? "" : " ") + ("'" + a + "'");
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Captures live beside the scratch folder, so that the folder's contents are only what the
  // tool wrote.
  std::string out_file = dir.path().string() + ".stdout", err_file = dir.path().string() + ".stderr";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, dir.path().c_str());
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "timeout", &actions, nullptr, argv.data(), ::environ);  // environ: <unistd.h>, _GNU_SOURCE
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    r.err = "posix_spawnp failed: " + std::to_string(rc);
    return r;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    // timeout reports a child killed by signal N as 128 + N (and itself killed as 137).
    if (r.exit_code > 128 && r.exit_code < 128 + 65) r.signal = r.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    r.signal = WTERMSIG(status);
  }
  r.out = read_all(out_file);
  r.err = read_all(err_file);
  std::filesystem::remove(out_file);
  std::filesystem::remove(err_file);
  return r;
}

}  // namespace autograph::testing
