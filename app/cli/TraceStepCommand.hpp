#pragma once
// `tilescope trace predict TRACE --arch HERE --on THERE`: a traced step's measured time beside
// the same step predicted on the graph of the chip it ran on and on another chip's
// (trace/TraceStepPrediction).
#include <cstdint>
#include <string>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct TraceStepOptions {
  std::string trace;
  std::string here;   // --arch: the graph of the chip the trace ran on
  std::string there;  // --on: the other chip's graph
  int64_t step = -1;
  std::string format = "text";  // text, json
  size_t top = 15;
  uint64_t budget = MapperOptions{}.budget;
};

int run_trace_step(const TraceStepOptions& options);

}  // namespace ts::cli
