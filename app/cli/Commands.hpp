#pragma once
// Each CLI subcommand registers its options and a run function; main() dispatches and turns
// InputError into `file:line:col: message` and exit status 2.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace ts::cli {

using Runner = std::function<int()>;

// The command line as typed, for files and databases that record how they were made.
const std::string& command_line();
void set_command_line(int argc, char** argv);

Runner add_predict(CLI::App& app);
Runner add_validate(CLI::App& app);
Runner add_bench(CLI::App& app);
Runner add_calibrate(CLI::App& app);
Runner add_measure(CLI::App& app);
Runner add_correlate(CLI::App& app);
Runner add_fit(CLI::App& app);
Runner add_db(CLI::App& app);
Runner add_simulate(CLI::App& app);
Runner add_validate_dist(CLI::App& app);
Runner add_import(CLI::App& app);
Runner add_report(CLI::App& app);

}  // namespace ts::cli
