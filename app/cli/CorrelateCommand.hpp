#pragma once
// `tilescope correlate`: predicted against measured latencies, per group and overall, and with
// --fit a cross-validated fit; with --diff two runs operator by operator. See docs/correlate.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct CorrelateOptions {
  std::string db, csv, op, dtype = "fp16", timing_scope = "host_call", arch, by, format = "table";
  std::string device;
  std::optional<int64_t> run;
  std::vector<std::string> fit;
  std::vector<std::string> fail_if;
  bool exclude_unstable = false;
  bool repredict = false;  // --repredict: run the mapper even where a prediction is stored
  std::string diff;
  std::optional<int64_t> diff_run;
  int folds = 5;
  int max_evaluations = 400;
  uint64_t budget = MapperOptions{}.budget;
  // Operators predicted at once, and a fit's evaluations (--threads); 0: every core
  // (common/WorkThreads).
  int threads = 0;
};

// 0, or 1 when a --fail-if gate is crossed (GateExit.hpp).
int run_correlate(const CorrelateOptions& options);

}  // namespace ts::cli
