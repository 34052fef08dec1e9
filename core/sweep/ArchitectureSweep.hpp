#pragma once
// A sweep over architecture parameters (`tilescope sweep`): the base graph, the workload, the
// axes and the points drawn from them. Each point is the base graph with the point's values
// written through the one writer of graph parameters (arch/ArchitectureParameterPath), predicted
// operator by operator with predict_operator (what `predict` runs per row). Points are
// independent and evaluate() is const, so threads and MPI ranks share one sweep and evaluate
// points by index; only rank 0 writes the store.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/SweepPointRecord.hpp"
#include "sweep/SweepSampling.hpp"
#include "sweep/SweepSpace.hpp"
#include "workload/Operator.hpp"

namespace ts {

// The cost proxy of a graph while graphs carry no area or power figures: the bytes of on-chip
// and off-chip memory it provides, the sum over memory nodes of capacity x instances.
double memory_cost_bytes(const ArchitectureGraph& graph);
// The graph's area as predict reports it (EnergyReport::area_m2, docs/energy.md): area x
// instances summed over the nodes that give an area; nullopt where none gives one. Area moves
// only with what the graph ties it to: a node's instances, never its capacity.
std::optional<double> graph_area_m2(const ArchitectureGraph& graph);
// The suite's energy: the sum over the workload's operators of their energy, once each as the
// total time counts them (J), `operators` in the workload's order; nullopt where any operator's
// energy is unknown.
std::optional<double> suite_energy_j(const Workload& workload,
                                     const std::vector<SweepOperatorTime>& operators);
// The operators whose mapper search ran out of budget at any of the points, in the order first
// met: what a sweep warns of, as predict does for one graph.
UnconvergedSearches unconverged_searches(const std::vector<SweepPointRecord>& points);

class ArchitectureSweep final : public SweepSpace {
 public:
  // Throws InputError located at "--vary" when two axes name the same parameter. Every point's
  // values were checked when the axes were parsed (sampled values lie between checked ones).
  ArchitectureSweep(ArchitectureGraph base, Workload workload, std::vector<SweepAxis> axes,
                    std::vector<SweepValues> points, MapperOptions mapper);

  size_t size() const override { return points_.size(); }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  const Workload& workload() const { return workload_; }
  const SweepValues& values(size_t index) const { return points_[index]; }
  // Keys of the store (measure/SweepPointRecord): the base graph with the mapper's settings,
  // the workload's operators, and a point's values.
  const std::string& sweep_key() const override { return sweep_key_; }
  const std::string& workload_hash() const override { return workload_hash_; }
  std::string parameters_json(size_t index) const override;

  ArchitectureGraph graph_at(size_t index) const;
  // Predicts every operator on the point's graph. An operator the mapper finds no valid mapping
  // for (a memory swept too small) takes forever: device_s is infinite and bound_by says why, so
  // that the rest of the sweep still runs. Throws MapperCancelled when `cancel` is set.
  SweepPointRecord evaluate(size_t index, const std::atomic<bool>* cancel = nullptr) const override;

 private:
  ArchitectureGraph base_;
  Workload workload_;
  std::vector<SweepAxis> axes_;
  std::vector<SweepValues> points_;
  MapperOptions mapper_;
  std::string sweep_key_, workload_hash_;
};

}  // namespace ts
