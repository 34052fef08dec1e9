#pragma once
// `tilescope fit`: fits chosen parameters of an architecture graph to measurements (a results
// database or a CSV table) and writes the fitted graph; with --graph DEVICE=ARCH, one calibration
// for several graphs (FitAcrossGraphs.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct FitOptions {
  std::string arch, out, op, dtype = "fp16", timing_scope = "host_call", device;
  std::vector<std::string> measurements_list;
  std::string measurements;  // the one table or database of single-graph mode
  std::vector<std::string> params;
  // Several graphs: DEVICE=ARCH, each device's rows of the tables predicted on its graph.
  std::vector<std::string> graphs;
  bool leave_one_out = false;
  size_t sample = 0;
  size_t rows = 0;
  std::string base_calibration;
  // Whether --dtype was typed: with --graph an untyped one means fp32, not the fp16 of one graph.
  bool dtype_given = false;
  std::optional<int64_t> run;
  int max_evaluations = 400;
  uint64_t budget = MapperOptions{}.budget;
};

int run_fit(FitOptions options);

}  // namespace ts::cli
