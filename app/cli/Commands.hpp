#pragma once
// Each CLI subcommand registers its options and a run function; main() dispatches and turns
// InputError into `file:line:col: message` and exit status 2.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace ts::cli {

// What a subcommand does once its options are parsed: returns the exit status. (Not to be
// confused with the CUPTI runner, the program that measures kernels on a GPU.)
using CommandAction = std::function<int()>;

// The command line as typed, for files and databases that record how they were made.
const std::string& command_line();
void set_command_line(int argc, char** argv);

// Parses the command line into `app`, then runs `run`: help and version exit 0, a usage error
// 2, bad input (InputError, malformed YAML) prints `file:line:col: what` and exits 2, any other
// failure prints `error: ...` and exits 1 (CommandExit.cpp).
int parse_and_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run);

CommandAction add_predict(CLI::App& app);
CommandAction add_compare(CLI::App& app);
CommandAction add_validate(CLI::App& app);
CommandAction add_bench(CLI::App& app);
CommandAction add_calibrate(CLI::App& app);
CommandAction add_measure(CLI::App& app);
CommandAction add_correlate(CLI::App& app);
CommandAction add_fit(CLI::App& app);
CommandAction add_db(CLI::App& app);
CommandAction add_simulate(CLI::App& app);
CommandAction add_validate_dist(CLI::App& app);
CommandAction add_import(CLI::App& app);
CommandAction add_report(CLI::App& app);
CommandAction add_profiles(CLI::App& app);
CommandAction add_sweep(CLI::App& app);

}  // namespace ts::cli
