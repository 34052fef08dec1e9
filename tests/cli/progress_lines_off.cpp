// Progress lines off a terminal (app/cli/TerminalProgress) would come into stderr whenever a
// command runs longer than their interval on a loaded machine: off for every command these tests
// run, so that stderr holds only what a test checks. test_terminal_progress.cpp turns them on
// where it tests them. Set before main(), in the one process that forks every tilescope.
#include <cstdlib>

namespace {
[[maybe_unused]] const bool progress_lines_off =
    ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0", 1) == 0;
}  // namespace
