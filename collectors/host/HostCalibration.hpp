#pragma once
// `calibrate host`: the host CPU as an architecture graph. hwloc gives the topology (cores,
// cache levels, sizes, which cores share which cache); microbenchmarks give what the graph needs
// (clock, vector FMA throughput per core, read and write bandwidth at every level with working
// sets sized to it, DRAM bandwidth, the cost of starting a parallel region). Nothing is typed by
// hand: every figure in the written graph is discovered or measured, or derived from those with
// the rule stated in docs/host.md.
#include <functional>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

namespace ts::host {

struct HostCalibrationOptions {
  int runs = 3;                  // independent repetitions of every microbenchmark
  double seconds_per_test = 0.05;
};

struct MeasuredFigure {
  std::string name;  // e.g. "L2 read bandwidth per core"
  std::string unit;  // e.g. "GB/s"
  std::vector<double> runs;
  double value = 0;   // the median of the runs
  double spread = 0;  // (max - min) / median
};

struct HostCalibration {
  ArchitectureGraph graph;  // nodes DRAM, [L3,] L2, L1, RF, Core
  std::vector<MeasuredFigure> figures;
  std::string when;  // ISO 8601 UTC
  std::string cpu_name;
  double max_spread = 0;
};

HostCalibration calibrate_host(const HostCalibrationOptions& options,
                               const std::function<void(const std::string&)>& progress);

// The mapping templates the host graph names (GEMM, vector), generated for its levels.
std::string host_gemm_template_yaml(const ArchitectureGraph& graph);
std::string host_vector_template_yaml(const ArchitectureGraph& graph);

}  // namespace ts::host
