#include "analysis/PredictionJson.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

std::string prediction_json(const std::vector<Prediction>& predictions,
                            const ArchitectureGraph& graph, const std::string& workload_name,
                            bool explain, const ForwardPass* pass,
                            const std::vector<int64_t>& counts) {
  nlohmann::json ops = nlohmann::json::array();
  double total_us = 0;
  for (size_t i = 0; i < predictions.size(); ++i) {
    const Prediction& r = predictions[i];
    const int64_t count = i < counts.size() ? counts[i] : 1;
    total_us += static_cast<double>(count) * (r.device_us + r.launch_overhead_us);
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
                        {"latency_us", r.device_us},
                        {"launch_overhead_us", r.launch_overhead_us},
                        {"cycles", r.cycles},
                        {"bound_by", r.bound_by},
                        {"utilization", r.utilization},
                        {"flops", r.flops},
                        {"mapping", r.mapping_origin},
                        {"count", count},
                        {"traffic", traffic},
                        {"residency", residency}};
    if (r.searched) {
      o["mapper_converged"] = r.search_converged;
      o["mapper_evaluations"] = r.search_evaluations;
    }
    if (explain) o["explain"] = r.explain;
    ops.push_back(o);
  }
  nlohmann::json document = {{"schema_version", 1},
                             {"architecture", graph.name},
                             {"architecture_hash", fmt::format("{:016x}", graph.content_hash())},
                             {"workload", workload_name},
                             {"operators", ops},
                             {"total_us", total_us}};
  if (pass) {
    nlohmann::json classes = nlohmann::json::array();
    for (const OperatorClassTime& c : pass->classes)
      classes.push_back({{"type", c.type},
                         {"kernels", c.kernels},
                         {"device_us", c.device_s * 1e6},
                         {"bound_by", c.bound_by},
                         {"main_memory_bytes", c.bytes}});
    document["forward_pass"] = {{"phase", pass->phase},
                                {"tokens_per_pass", pass->tokens_per_pass},
                                {"kernels", pass->kernels},
                                {"device_us", pass->device_s * 1e6},
                                {"launch_overhead_us", pass->launch_s * 1e6},
                                {"time_per_token_us", pass->time_per_token_s * 1e6},
                                {"tokens_per_s", pass->tokens_per_s},
                                {"operator_types", classes}};
  }
  return document.dump(2);
}

}  // namespace ts
