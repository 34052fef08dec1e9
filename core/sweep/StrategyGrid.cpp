#include "sweep/StrategyGrid.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "common/Fnv1a.hpp"
#include "common/InputError.hpp"
#include "common/YamlSource.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts {
namespace {

const SourceLocation kGrid{"strategy grid", 0, 0};
constexpr int64_t kMaxDegree = 65536;  // keeps tp x pp x dp and its kin far from overflow
constexpr const char* kOutOfMemory = "out of memory: ";

std::vector<std::string> split_values(const std::string& text, size_t at) {
  std::vector<std::string> values;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    values.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return values;
}

std::vector<int64_t> degrees(const std::string& text, const std::vector<std::string>& values) {
  std::vector<int64_t> out;
  for (const std::string& v : values) {
    int64_t d = 0;
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
    if (ec != std::errc() || end != v.data() + v.size() || d < 1 || d > kMaxDegree)
      throw InputError(
          kGrid, fmt::format("'{}': '{}' is not a whole number from 1 to {}", text, v, kMaxDegree));
    out.push_back(d);
  }
  return out;
}

PipelineSchedule schedule_named(const std::string& text, const std::string& v) {
  for (PipelineSchedule s :
       {PipelineSchedule::gpipe, PipelineSchedule::one_f_one_b, PipelineSchedule::interleaved})
    if (to_string(s) == v) return s;
  throw InputError(kGrid, fmt::format("'{}': unknown schedule '{}'; expected gpipe, 1f1b or "
                                      "interleaved",
                                      text, v));
}

std::string file_hash(const std::string& path) {
  return hash_text(fnv1a(YamlSource::read_file(path)));
}

}  // namespace

StrategyGridAxes parse_strategy_grid(const std::vector<std::string>& texts) {
  StrategyGridAxes axes;
  std::set<std::string> seen;
  for (const std::string& text : texts) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos)
      throw InputError(kGrid, fmt::format("'{}': expected KEY=V1,V2,... with KEY tp, pp, dp, "
                                          "micro-batch, schedule or cluster",
                                          text));
    std::string key = text.substr(0, eq);
    if (key == "mbs") key = "micro-batch";  // simulate --sweep's name for it
    const std::vector<std::string> values = split_values(text, eq + 1);
    for (const std::string& v : values)
      if (v.empty()) throw InputError(kGrid, fmt::format("'{}': an empty value", text));
    if (key == "tp")
      axes.tp = degrees(text, values);
    else if (key == "pp")
      axes.pp = degrees(text, values);
    else if (key == "dp")
      axes.dp = degrees(text, values);
    else if (key == "micro-batch")
      axes.micro_batch = degrees(text, values);
    else if (key == "schedule")
      for (const std::string& v : values) axes.schedule.push_back(schedule_named(text, v));
    else if (key == "cluster")
      axes.cluster = values;
    else
      throw InputError(kGrid, fmt::format("'{}': unknown key '{}'; expected tp, pp, dp, "
                                          "micro-batch (mbs), schedule or cluster",
                                          text, text.substr(0, eq)));
    if (!seen.insert(key).second)
      throw InputError(kGrid, fmt::format("'{}': '{}' is given twice; give all its values in one "
                                          "KEY=V1,V2,...",
                                          text, key));
  }
  return axes;
}

std::vector<std::string> varied_grid_keys(const StrategyGridAxes& axes) {
  std::vector<std::string> keys;  // sorted, as parameters_json has them
  if (!axes.cluster.empty()) keys.push_back("cluster");
  if (!axes.dp.empty()) keys.push_back("dp");
  if (!axes.micro_batch.empty()) keys.push_back("micro-batch");
  if (!axes.pp.empty()) keys.push_back("pp");
  if (!axes.schedule.empty()) keys.push_back("schedule");
  if (!axes.tp.empty()) keys.push_back("tp");
  return keys;
}

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
  const ParallelStrategy& base = inputs_.base;
  const auto or_base = [](const auto& v, auto fallback) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    return v.empty() ? std::vector<T>{fallback} : v;
  };
  std::set<std::string> kept;
  for (int64_t tp : or_base(axes.tp, base.tp.value))
    for (int64_t pp : or_base(axes.pp, base.pp.value))
      for (int64_t dp : or_base(axes.dp, int64_t{0}))
        for (int64_t mbs : or_base(axes.micro_batch, base.micro_batch.value))
          for (PipelineSchedule schedule : or_base(axes.schedule, base.schedule.value))
            for (size_t c = 0; c < clusters_.size(); ++c) {
              ParallelStrategy s = base;
              s.tp.value = tp;
              s.pp.value = pp;
              // dp not given: the base strategy's GPUs, as `simulate --sweep` does.
              if (dp == 0 && base.gpus() % (tp * pp) != 0) {
                ++skipped_;
                continue;
              }
              s.dp.value = dp > 0 ? dp : base.gpus() / (tp * pp);
              s.micro_batch.value = mbs;
              // One stage has no pipeline to schedule; chunks are for interleaving only (at
              // least 2 there, the base strategy's count when it has more).
              s.schedule.value = pp == 1 ? PipelineSchedule::one_f_one_b : schedule;
              s.chunks.value = s.schedule.value == PipelineSchedule::interleaved
                                   ? std::max<int64_t>(base.chunks.value, 2)
                                   : 1;
              s.name = fmt::format("{} tp{} pp{} dp{} mbs{} {}", base.name, tp, pp, s.dp.value, mbs,
                                   to_string(s.schedule.value));
              try {
                if (s.gpus() > clusters_[c].cluster.gpus())
                  throw InputError(kGrid, "more GPUs than the cluster has");
                check_strategy_fits(s, inputs_.model, s.gpus());
                if (s.schedule.value == PipelineSchedule::interleaved &&
                    s.micro_batches() % pp != 0)
                  throw InputError(kGrid, "interleaving needs whole groups of pp micro-batches");
              } catch (const InputError&) {
                ++skipped_;  // not a valid point of the grid
                continue;
              }
              points_.push_back({s, c});
              // pp = 1 makes every schedule the same point: keep it once.
              if (!kept.insert(parameters_json(points_.size() - 1)).second) points_.pop_back();
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

}  // namespace ts
