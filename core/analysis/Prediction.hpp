#pragma once
// A finished prediction for one operator: the plain values every face of tilescope shows.
#include <optional>
#include <string>
#include <vector>

#include "analysis/AnalysisResult.hpp"
#include "analysis/Energy.hpp"

namespace ts {

struct EdgeTraffic {
  std::string edge;  // "HBM->L2"
  double bytes = 0;
};

struct MemoryResidency {
  std::string memory;
  double bytes_per_instance = 0;
  double capacity_bytes = 0;
};

// Words one memory read, was filled with and updated for one tensor (AccessCounts.hpp).
struct MemoryAccesses {
  std::string memory;
  std::string tensor;
  double reads = 0, fills = 0, updates = 0, spatial_reductions = 0;
};

struct Prediction {
  std::string op_name;
  std::string op_type;
  std::string shape;
  std::string mapping_name;
  std::string mapping_origin;  // "file" or "mapper"
  // Where the mapper chose the mapping: whether its search converged (MapperResult::converged)
  // and how many points it evaluated.
  bool searched = false;
  bool search_converged = false;
  uint64_t search_evaluations = 0;
  double device_us = 0;  // device time: the launch overhead is launch_overhead_us
  double launch_overhead_us = 0;
  double cycles = 0;       // device time in cycles of the graph clock
  std::string bound_by;    // compute:<node>, edge:<from>-><to>, or launch
  double utilization = 0;  // of the bound (or the op's) compute node's peak, 0..1
  double flops = 0;
  std::vector<EdgeTraffic> traffic;
  std::vector<MemoryResidency> residency;
  std::vector<MemoryAccesses> accesses;
  // Energy and area where the graph gives the figures (docs/energy.md): energy.known false when
  // it gives none.
  EnergyReport energy;
  std::string explain;  // annotated tree
};

std::string bound_text(const ArchitectureGraph& graph, BoundBy bound);
Prediction make_prediction(const MappingProgram& program, const AnalysisResult& result);
// The mapping tree, one line per node, with footprints, iterations, time and bound per node.
std::string explain_tree(const MappingProgram& program, const AnalysisResult& result);

}  // namespace ts
