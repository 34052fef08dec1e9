#include "analysis/PredictionJson.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

std::string prediction_json(const std::vector<Prediction>& predictions,
                            const ArchitectureGraph& graph, const std::string& workload_name,
                            bool explain) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& r : predictions) {
    nlohmann::json traffic = nlohmann::json::array();
    for (const auto& t : r.traffic) traffic.push_back({{"edge", t.edge}, {"bytes", t.bytes}});
    nlohmann::json residency = nlohmann::json::array();
    for (const auto& m : r.residency)
      residency.push_back({{"memory", m.memory},
                           {"bytes_per_instance", m.bytes_per_instance},
                           {"capacity_bytes", m.capacity_bytes}});
    nlohmann::json o = {{"name", r.op_name},
                        {"type", r.op_type},
                        {"shape", r.shape},
                        {"latency_us", r.latency_us},
                        {"launch_overhead_us", r.launch_overhead_us},
                        {"cycles", r.cycles},
                        {"bound_by", r.bound_by},
                        {"utilization", r.utilization},
                        {"flops", r.flops},
                        {"mapping", r.mapping_origin},
                        {"traffic", traffic},
                        {"residency", residency}};
    if (r.searched) {
      o["mapper_converged"] = r.search_converged;
      o["mapper_evaluations"] = r.search_evaluations;
    }
    if (explain) o["explain"] = r.explain;
    ops.push_back(o);
  }
  const nlohmann::json document = {
      {"schema_version", 1},
      {"architecture", graph.name},
      {"architecture_hash", fmt::format("{:016x}", graph.content_hash())},
      {"workload", workload_name},
      {"operators", ops}};
  return document.dump(2);
}

}  // namespace ts
