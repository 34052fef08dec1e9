#pragma once
// How a tilescope program turns a command's failure into an exit status; shared by tilescope and
// tilescope-report so that both answer bad input the same way.
#include <functional>

namespace ts::cli {

// Runs `run` and returns its status. Bad input (InputError, malformed YAML, a path that cannot be
// made) prints `file:line:col: what` (or `PATH: what`) and gives 2; any other failure prints
// `error: ...` and gives 1.
int exit_status_of(const std::function<int()>& run);

}  // namespace ts::cli
