// The command line as typed, for the files and databases that record how they were made;
// shared by tilescope and tilescope-report.
#include "CommandLine.hpp"

namespace ts::cli {
namespace {
std::string g_command_line;
}

const std::string& command_line() { return g_command_line; }

void set_command_line(int argc, char** argv) {
  g_command_line.clear();
  for (int i = 0; i < argc; ++i) {
    std::string arg = i == 0 ? std::string("tilescope") : std::string(argv[i]);
    const bool quote = arg.empty() || arg.find_first_of(" \t'\"$") != std::string::npos;
    g_command_line += (i ? " " : "") + (quote ? "'" + arg + "'" : arg);
  }
}

}  // namespace ts::cli
