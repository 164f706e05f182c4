// autograph: the command-line tool. `autograph --help` lists the commands.
#include <autograph/core/error.hpp>
#include <autograph/cpu/openmp_wait.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <new>

#include <cstdlib>

#include <unistd.h>

#include "command.hpp"

int main(int argc, char** argv) {
  // The CPU runtime's streams are OpenMP teams: their idle threads should spin briefly, neither
  // for milliseconds (libgomp's default, which starves concurrent streams) nor not at all
  // (a futex wake-up per kernel); cpu/openmp_wait.hpp has the measurements. libgomp reads the
  // setting when it is loaded, before main, so the tool sets it and starts itself again; a
  // policy the user chose is kept.
  if (!autograph::cpu::openmp_wait_chosen() && setenv("GOMP_SPINCOUNT", autograph::cpu::short_spin_count, 1) == 0) execv("/proc/self/exe", argv);
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
  // An option given an empty value (`--model ''`, `--seed ''`) would read as one not given
  // and quietly mean its default: refuse it, for every option of every command alike.
  for (auto& [sub, run] : runs) {
    if (!sub->parsed()) continue;
    for (CLI::Option const* opt : sub->get_options()) {
      if (opt->get_type_size() == 0 || opt->count() == 0) continue;  // flags take no value
      for (std::string const& value : opt->results())
        if (value.empty()) {
          std::cerr << "autograph: error: " << opt->get_name() << ": the value is empty\n";
          return 1;
        }
    }
  }
  try {
    for (auto& [sub, run] : runs)
      if (sub->parsed()) return run();
  } catch (autograph::Error const& e) {
    std::cerr << "autograph: error: " << e.what() << "\n";
    return 1;
  } catch (std::bad_alloc const&) {
    // Checks before the work refuse tensors that cannot fit (graph building, the simulated
    // device, the reference executor); what they cannot foresee (a model's own weights at a
    // huge resolution) still ends here with the cause named, not as an unexpected error.
    std::cerr << "autograph: error: out of memory: the model at these sizes does not fit in this machine's memory"
                 " (try a smaller --batch, --resolution or --input shape)\n";
    return 1;
  } catch (std::exception const& e) {
    std::cerr << "autograph: unexpected error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
