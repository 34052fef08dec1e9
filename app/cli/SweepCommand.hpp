#pragma once
// `tilescope sweep`: a workload predicted at every point of a space of architecture parameters,
// or (--strategy-grid) a training job simulated at every point of a grid of strategies.
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct SweepOptions {
  std::string arch, workload, db;
  std::vector<std::string> vary;
  std::string sample = "cross";
  uint64_t seed = 1;
  uint64_t budget = MapperOptions{}.budget;
  int threads = 0;
  bool summary = false;
  // What the fronts set time against: auto (energy, else area, else memory), memory, energy,
  // area, edp or a varied parameter (sweep/SweepCost).
  std::string cost = "auto";
  std::string format = "text";  // text (or table, the same), json
  // --strategy-grid: a training job instead of a graph (docs/sweep.md).
  std::vector<std::string> strategy_grid;
  std::string model, strategy, cluster, operator_times = "tile";
};

// 0, or 130 when interrupted (the points stored so far are kept for a rerun to resume).
int run_sweep(const SweepOptions& options);

}  // namespace ts::cli
