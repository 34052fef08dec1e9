#include "measure/SweepPointRecord.hpp"

#include <limits>
#include <nlohmann/json.hpp>

namespace ts {
namespace {

// JSON has no infinity (nlohmann writes null): the time of an operator without a valid mapping.
double time_of(const nlohmann::json& value) {
  return value.is_null() ? std::numeric_limits<double>::infinity() : value.get<double>();
}

// A figure that may be unknown: absent or null reads as unknown (records written before it).
std::optional<double> figure_of(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  return it->get<double>();
}

nlohmann::json figure_value(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json operators_value(const std::vector<SweepOperatorTime>& operators) {
  nlohmann::json out = nlohmann::json::array();
  for (const SweepOperatorTime& o : operators) {
    nlohmann::json one = {{"name", o.name},
                          {"device_s", o.device_s},
                          {"launch_s", o.launch_s},
                          {"bound_by", o.bound_by}};
    if (!o.converged) one["converged"] = false;
    if (!o.mapping.empty()) one["mapping"] = o.mapping;
    if (!o.mapping_origin.empty()) one["mapping_origin"] = o.mapping_origin;
    if (o.energy_j) one["energy_j"] = *o.energy_j;
    out.push_back(std::move(one));
  }
  return out;
}

std::vector<SweepOperatorTime> operators_of(const nlohmann::json& value) {
  std::vector<SweepOperatorTime> out;
  for (const nlohmann::json& o : value)
    out.push_back({o.at("name").get<std::string>(), time_of(o.at("device_s")),
                   time_of(o.at("launch_s")), o.at("bound_by").get<std::string>(),
                   o.value("converged", true), o.value("mapping", std::string()),
                   o.value("mapping_origin", std::string()), figure_of(o, "energy_j")});
  return out;
}

}  // namespace

std::string sweep_operators_json(const std::vector<SweepOperatorTime>& operators) {
  return operators_value(operators).dump();
}

std::vector<SweepOperatorTime> sweep_operators_from_json(std::string_view text) {
  return operators_of(nlohmann::json::parse(text));
}

std::string sweep_point_json(const SweepPointRecord& p) {
  return nlohmann::json{{"sweep_key", p.sweep_key},
                        {"workload_hash", p.workload_hash},
                        {"parameters_json", p.parameters_json},
                        {"arch_hash", p.arch_hash},
                        {"total_s", p.total_s},
                        {"cost", p.cost},
                        {"energy_j", figure_value(p.energy_j)},
                        {"area_m2", figure_value(p.area_m2)},
                        {"operators", operators_value(p.operators)}}
      .dump();
}

SweepPointRecord sweep_point_from_json(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text);
  SweepPointRecord p;
  p.sweep_key = j.at("sweep_key").get<std::string>();
  p.workload_hash = j.at("workload_hash").get<std::string>();
  p.parameters_json = j.at("parameters_json").get<std::string>();
  p.arch_hash = j.at("arch_hash").get<std::string>();
  p.total_s = time_of(j.at("total_s"));
  p.cost = j.at("cost").get<double>();
  p.energy_j = figure_of(j, "energy_j");
  p.area_m2 = figure_of(j, "area_m2");
  p.operators = operators_of(j.at("operators"));
  return p;
}

}  // namespace ts
