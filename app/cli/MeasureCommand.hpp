#pragma once
// `tilescope measure`: run a suite's operators on a collector, store every measurement with the
// prediction for the same operator and mapping, so that `correlate` can join them.
#include <string>

#include "measure/Collector.hpp"

namespace ts::cli {

struct MeasureOptions {
  std::string collector = "host";
  MeasureRequest request;
  // Kept as typed: flags that turn one of the request's defaults off.
  bool no_flush = false, no_openblas = false;

  // The request's defaults that tilescope sets rather than the collector: the host's graph, the
  // cupti kernel's template, the mapper's budget.
  MeasureOptions();
};

// The collector's exit status; Ctrl-C stops it between repetitions, keeping what it measured.
int run_measure(const MeasureOptions& options);

}  // namespace ts::cli
