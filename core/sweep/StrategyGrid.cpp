#include "sweep/StrategyGrid.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "common/Fnv1a.hpp"
#include "common/InputError.hpp"
#include "common/YamlSource.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts {
namespace {

constexpr const char* kOutOfMemory = "out of memory: ";

std::string file_hash(const std::string& path) {
  return hash_text(fnv1a(YamlSource::read_file(path)));
}

}  // namespace

StrategyGridInputs load_strategy_grid_inputs(const std::string& model_file,
                                             const std::string& strategy_file,
                                             const std::string& operator_times) {
  StrategyGridInputs in;
  in.model = load_transformer_model(model_file);
  in.model_hash = file_hash(model_file);
  in.base = load_parallel_strategy(strategy_file);
  in.base_hash = file_hash(strategy_file);
  in.operator_times = operator_times;
  in.times = parse_operator_time_source(operator_times);
  return in;
}

std::vector<GridCluster> load_grid_clusters(const StrategyGridAxes& axes,
                                            const std::string& base_cluster_file) {
  std::vector<GridCluster> clusters;
  const std::vector<std::string> files =
      axes.cluster.empty() ? std::vector<std::string>{base_cluster_file} : axes.cluster;
  for (const std::string& f : files) clusters.push_back({f, file_hash(f), load_cluster(f)});
  return clusters;
}

StrategyGridSweep::StrategyGridSweep(StrategyGridInputs inputs, const StrategyGridAxes& axes,
                                     std::vector<GridCluster> clusters)
    : inputs_(std::move(inputs)), clusters_(std::move(clusters)) {
  const StrategyGrid grid = expand_strategy_grid(inputs_.model, inputs_.base, axes);
  skipped_ = grid.skipped * clusters_.size();
  for (const ParallelStrategy& s : grid.strategies)
    for (size_t c = 0; c < clusters_.size(); ++c) {
      if (s.gpus() > clusters_[c].cluster.gpus())
        ++skipped_;  // more GPUs than the cluster has
      else
        points_.push_back({s, c});
    }
  Fnv1a key;
  key.add_string("tilescope-strategy-grid-1");
  key.add_string(inputs_.base_hash);
  key.add_string(inputs_.operator_times);
  sweep_key_ = hash_text(key.value());
}

std::string StrategyGridSweep::parameters_json(size_t index) const {
  const Point& p = points_[index];
  const GridCluster& c = clusters_[p.cluster];
  nlohmann::json values = nlohmann::json::object();  // keys come out sorted
  values["cluster"] = c.file;
  values["cluster-content"] = c.content_hash;
  values["dp"] = p.strategy.dp.value;
  values["micro-batch"] = p.strategy.micro_batch.value;
  values["pp"] = p.strategy.pp.value;
  values["schedule"] = std::string(to_string(p.strategy.schedule.value));
  values["tp"] = p.strategy.tp.value;
  return values.dump();
}

SweepPointRecord StrategyGridSweep::evaluate(size_t index, const std::atomic<bool>* cancel) const {
  if (cancel && cancel->load()) throw MapperCancelled(0, 0, 0);
  const Point& p = points_[index];
  const GridCluster& c = clusters_[p.cluster];
  SweepPointRecord point;
  point.sweep_key = sweep_key_;
  point.workload_hash = inputs_.model_hash;
  point.parameters_json = parameters_json(index);
  point.arch_hash = c.content_hash;
  try {
    const TrainingSimulation r =
        simulate_training(inputs_.model, p.strategy, c.cluster, inputs_.times);
    point.total_s = r.iteration_s;
    point.cost = r.peak_memory_bytes;
    const std::string why =
        r.out_of_memory ? fmt::format("{}{:.0f} bytes per GPU at the peak, the device has {:.0f}",
                                      kOutOfMemory, r.peak_memory_bytes, r.device_memory_bytes)
                        : std::string();
    for (const TimeShare& t : r.breakdown) point.operators.push_back({t.what, t.seconds, 0, why});
  } catch (const InputError& e) {
    point.total_s = std::numeric_limits<double>::infinity();
    point.operators.push_back({"iteration", point.total_s, 0, e.message()});
  }
  return point;
}

bool strategy_point_out_of_memory(const SweepPointRecord& point) {
  return !point.operators.empty() && point.operators.front().bound_by.rfind(kOutOfMemory, 0) == 0;
}

std::string strategy_point_text(const SweepPointRecord& point,
                                const std::vector<std::string>& keys) {
  const nlohmann::json values = nlohmann::json::parse(point.parameters_json);
  std::string out;
  for (const std::string& key : keys) {
    const nlohmann::json& v = values.at(key);
    out += fmt::format("{}{}={}", out.empty() ? "" : " ", key,
                       v.is_string() ? v.get<std::string>() : v.dump());
  }
  return out;
}

}  // namespace ts
