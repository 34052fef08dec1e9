#pragma once
// `tilescope trace summary|breakdown|overlap|idle|launch|host|diff TRACE...`: what a profile says
// about where the time went, per rank (trace/TraceAnalysis), without a graph or a database.
#include <cstdint>
#include <string>
#include <vector>

namespace ts::cli {

struct TraceOptions {
  std::string view;                 // summary, breakdown, overlap, idle, launch, host, diff
  std::vector<std::string> traces;  // files or per-rank folders; diff: exactly two
  std::string format = "text";      // text, json, csv
  int64_t step = -1;                // ProfilerStep#N, -1: the whole trace
  size_t top = 15;                  // kernels and operators listed
};

int run_trace(const TraceOptions& options);

}  // namespace ts::cli
