#pragma once
// What a program's CLI11 grammar shares: tilescope's (CommandLineGrammar.cpp) and
// tilescope-report's (app/report). Only a grammar includes this; the commands read plain option
// structs (PredictCommand.hpp, ...) and never see CLI11.
#include <CLI/CLI.hpp>
#include <functional>

#include "CommandExit.hpp"
#include "CommandLine.hpp"

namespace ts::cli {

// Parses the command line into `app`, then runs `run`: help and version exit 0, a usage error
// 2, and a failure of `run` as exit_status_of says (bad input 2 with `file:line:col: what`,
// anything else 1).
inline int parse_and_run(CLI::App& app, int argc, char** argv, const std::function<int()>& run) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  return exit_status_of(run);
}

}  // namespace ts::cli
