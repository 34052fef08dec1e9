#pragma once
// `tilescope compare`: one workload on two or more architecture graphs, side by side.
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct CompareOptions {
  std::vector<std::string> archs;
  std::string workload, format = "table";
  uint64_t budget = MapperOptions{}.budget;
  // Predictions made at once (--threads); 0: every core (common/WorkThreads).
  int threads = 0;
};

int run_compare(const CompareOptions& options);

}  // namespace ts::cli
