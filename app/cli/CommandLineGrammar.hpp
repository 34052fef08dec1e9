#pragma once
// tilescope's command line: every subcommand, option, default, check and help text, in the one
// file that includes CLI11 (CommandLineGrammar.cpp); the commands read plain option structs.

namespace ts::cli {

// Parses `argv` and runs the command it names; returns the exit status: 0 for help and version,
// 2 for a usage error or bad input (`file:line:col: message`), 1 for any other failure, else the
// command's own.
int run_command_line(int argc, char** argv);

}  // namespace ts::cli
