#pragma once
// `tilescope bench import`: the Kineto import path on a trace of at least `json_bytes` (issue
// 21 asks 1 GB and more), generated into a temporary folder and removed afterwards.
#include <cstdint>

namespace ts::cli {

// Prints what was generated, where the time went (read vs match and store) and, last,
// `import: R MB/s, peak P MB` (MB = 1e6 bytes of JSON; P the process's peak resident memory).
int run_import_bench(uint64_t json_bytes);

}  // namespace ts::cli
