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
    nlohmann::json accesses = nlohmann::json::array();
    for (const MemoryAccesses& a : r.accesses)
      accesses.push_back({{"memory", a.memory},
                          {"tensor", a.tensor},
                          {"reads", a.reads},
                          {"fills", a.fills},
                          {"updates", a.updates},
                          {"spatial_reductions", a.spatial_reductions}});
    o["accesses"] = accesses;
    // Energy only where the graph gives figures: null says unknown, not zero.
    o["energy_pj"] = r.energy.known ? nlohmann::json(r.energy.total_j * 1e12) : nlohmann::json();
    o["area_um2"] = r.energy.area_m2 ? nlohmann::json(*r.energy.area_m2 * 1e12) : nlohmann::json();
    if (r.energy.known || r.energy.partial) {
      nlohmann::json nodes = nlohmann::json::array();
      for (const NodeEnergy& n : r.energy.nodes)
        nodes.push_back({{"node", n.name},
                         {"reads_pj", n.reads_j * 1e12},
                         {"fills_pj", n.fills_j * 1e12},
                         {"updates_pj", n.updates_j * 1e12},
                         {"compute_pj", n.compute_j * 1e12},
                         {"leak_pj", n.leak_j * 1e12},
                         {"total_pj", n.total_j() * 1e12}});
      o["energy_by_node"] = nodes;
      o["edges_energy_pj"] = r.energy.edges_j * 1e12;
      o["energy_unpriced"] = r.energy.unpriced;
    }
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
