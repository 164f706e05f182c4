#pragma once
// Subcommands of the `autograph` tool register themselves here: one cmd_*.cpp per command,
// no central list to edit.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace autograph::cli {

/// `setup` declares the command's options on its CLI11 subcommand and returns what to run
/// once they are parsed (the process exit code).
struct Command {
  std::string name;
  std::string help;
  std::function<std::function<int()>(CLI::App&)> setup;
};

inline std::vector<Command>& commands() {
  static std::vector<Command> all;
  return all;
}

struct Register {
  explicit Register(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace autograph::cli
