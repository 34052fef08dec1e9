#pragma once
// `tilescope predict`: every operator's device time, launch overhead, bound and traffic.
#include <cstdint>
#include <string>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct PredictOptions {
  std::string arch, workload, op, mapping, format = "table", save_mappings;
  bool explain = false;
  // Size a `kind: llm-model` pass (LlmModelReader.hpp); unset: the file's own figures.
  std::string phase;
  int64_t batch = 0, context = 0, tokens = 0;  // 0: not given
  uint64_t budget = MapperOptions{}.budget;
  // What the mapper minimises: "latency" (default), "energy" or "edp" (MapperObjective).
  std::string objective = "latency";
  // Operators predicted at once (--threads); 0: every core (common/WorkThreads).
  int threads = 0;
};

int run_predict(const PredictOptions& options);

}  // namespace ts::cli
