#pragma once
// The command line as typed, for the files and databases that record how they were made; shared
// by tilescope and tilescope-report.
#include <string>

namespace ts::cli {

const std::string& command_line();
void set_command_line(int argc, char** argv);

}  // namespace ts::cli
