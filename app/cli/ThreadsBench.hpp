#pragma once
// `tilescope bench threads`: predict, compare and correlate run as a user runs them, with
// `--threads 1` and with the default (every core), in one run: the speed-up of each.
#include <string>

namespace ts::cli {

// `root` holds samples/. Prints the plan first (what, and about how long), then per command the
// best wall time of `repetitions` runs each way and their ratio. 130 when Ctrl-C stopped it.
int run_threads_bench(const std::string& root, int repetitions);

}  // namespace ts::cli
