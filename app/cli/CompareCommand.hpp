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
};

int run_compare(const CompareOptions& options);

}  // namespace ts::cli
