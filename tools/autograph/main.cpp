// autograph: the command-line tool. `autograph --help` lists the commands.
#include <autograph/core/error.hpp>

#include <algorithm>
#include <iostream>
#include <map>

#include "command.hpp"

int main(int argc, char** argv) {
  using namespace autograph::cli;
  CLI::App app{"autograph: optimize DNN computation graphs for parallel kernel execution"};
  app.require_subcommand(1);
  auto& cmds = commands();
  std::ranges::sort(cmds, {}, &Command::name);
  std::map<CLI::App*, std::function<int()>> runs;
  for (auto& c : cmds) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runs[sub] = c.setup(*sub);
  }
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    // CLI11 prints the message (or the help) and would exit with its own codes (105 for a
    // failed check, ...); every error the user can fix exits 1, as the commands' own checks do.
    return app.exit(e) == 0 ? 0 : 1;
  }
  try {
    for (auto& [sub, run] : runs)
      if (sub->parsed()) return run();
  } catch (autograph::Error const& e) {
    std::cerr << "autograph: error: " << e.what() << "\n";
    return 1;
  } catch (std::exception const& e) {
    std::cerr << "autograph: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
