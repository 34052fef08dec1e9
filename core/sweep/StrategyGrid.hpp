#pragma once
// `tilescope sweep --strategy-grid`: a training job simulated (simulate_training, what
// `tilescope simulate` runs) at every point of a grid of strategies and clusters, with the
// machinery of architecture sweeps (SweepSpace: store, resume, threads, MPI ranks).
//
// The grid is training/StrategyGridAxes (what `simulate --sweep` reads and expands, the same
// parser and rule) with clusters: cluster files, --cluster's when the grid names none. Points that
// do not fit the model or the cluster are left out when the grid is built (docs/sweep.md).
#include <cstdint>
#include <string>
#include <vector>

#include "sweep/SweepSpace.hpp"
#include "training/StrategyGridAxes.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts {

struct GridCluster {
  std::string file;
  std::string content_hash;  // of the file's text: an edited cluster is a new point
  Cluster cluster;
};

struct StrategyGridInputs {
  TransformerModel model;
  std::string model_hash;  // of the model file's text
  ParallelStrategy base;
  std::string base_hash;       // of the strategy file's text
  std::string operator_times;  // as given: "tile", "roofline:EFF", "db:FILE"
  OperatorTimeSource times;
};

// Loads the model, the base strategy, the operator-time source and each cluster (the base
// cluster when the grid varies none): the files' own errors (InputError naming file and line)
// come out before any point runs.
StrategyGridInputs load_strategy_grid_inputs(const std::string& model_file,
                                             const std::string& strategy_file,
                                             const std::string& operator_times);
std::vector<GridCluster> load_grid_clusters(const StrategyGridAxes& axes,
                                            const std::string& base_cluster_file);

class StrategyGridSweep final : public SweepSpace {
 public:
  // expand_strategy_grid's strategies, each on every cluster (cluster fastest) whose GPUs it
  // fits; `skipped()` counts the points of the cross product left out.
  StrategyGridSweep(StrategyGridInputs inputs, const StrategyGridAxes& axes,
                    std::vector<GridCluster> clusters);

  size_t size() const override { return points_.size(); }
  size_t skipped() const { return skipped_; }
  const std::string& sweep_key() const override { return sweep_key_; }
  const std::string& workload_hash() const override { return inputs_.model_hash; }
  std::string parameters_json(size_t index) const override;
  const ParallelStrategy& strategy_at(size_t index) const { return points_[index].strategy; }
  const Cluster& cluster_at(size_t index) const {
    return clusters_[points_[index].cluster].cluster;
  }
  const TransformerModel& model() const { return inputs_.model; }
  const OperatorTimeSource& times() const { return inputs_.times; }

  // One iteration simulated: total_s is the iteration time, cost the peak memory per GPU (bytes),
  // operators the time breakdown of one pipeline device (TimeShare: what, seconds as device_s).
  // A point that runs out of device memory says so in every entry's bound_by ("out of memory:
  // ..."), read back by strategy_point_out_of_memory. A point the simulator refuses takes an
  // infinite time with its error as bound_by. Throws MapperCancelled when `cancel` is set
  // before it starts (one simulation is not cut short).
  SweepPointRecord evaluate(size_t index, const std::atomic<bool>* cancel = nullptr) const override;

 private:
  struct Point {
    ParallelStrategy strategy;
    size_t cluster = 0;
  };
  StrategyGridInputs inputs_;
  std::vector<GridCluster> clusters_;
  std::vector<Point> points_;
  size_t skipped_ = 0;
  std::string sweep_key_;
};

// Whether a stored point of a strategy grid ran out of device memory (see evaluate).
bool strategy_point_out_of_memory(const SweepPointRecord& point);

// "tp=2 pp=4 schedule=1f1b": a stored point's values of `keys` (varied_grid_keys), as a summary
// names the point.
std::string strategy_point_text(const SweepPointRecord& point, const std::vector<std::string>& keys);

}  // namespace ts
