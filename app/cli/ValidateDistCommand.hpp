#pragma once
// `tilescope validate-dist [FILE]`: published training runs against what the simulator predicts.
#include <string>

namespace ts::cli {

struct ValidateDistOptions {
  std::string file = "samples/dist/validation/korthikanti-table5.yaml";
  std::string format = "table";
  std::string operator_times = "tile";
};

int run_validate_dist(const ValidateDistOptions& options);

}  // namespace ts::cli
