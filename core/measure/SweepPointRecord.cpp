#include "measure/SweepPointRecord.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace ts {
namespace {

using nlohmann::json;

// A time a sweep writes as a difference of sums may round below zero (-7e-18 s): a time is
// refused only below this.
constexpr double kTimeRounding = 1e-9;

// What a stored record is read against: every fault is an InputError at the record's row.
struct RecordReader {
  const SourceLocation& where;
  std::string context;  // "sweep_points row 7: operators_json" and the like

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(where, context + ": " + what);
  }
  const json& field(const json& object, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(fmt::format("no '{}'; expected it in every record", key));
    return *it;
  }
  std::string text(const json& value, const char* key) const {
    if (!value.is_string()) fail(fmt::format("'{}' is {}; expected text", key, value.type_name()));
    return value.get<std::string>();
  }
  std::string text_or(const json& object, const char* key) const {
    const auto it = object.find(key);
    return it == object.end() ? std::string() : text(*it, key);
  }
  // A figure that must be finite and >= 0 (a cost, an energy).
  double figure(const json& value, const char* key) const {
    if (!value.is_number())
      fail(fmt::format("'{}' is {}; expected a number >= 0", key, value.type_name()));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < 0)
      fail(fmt::format("'{}' is {}; expected a finite number >= 0", key, v));
    return v;
  }
  // JSON has no infinity (nlohmann writes null): the time of an operator without a valid
  // mapping. Otherwise a finite time >= 0 (to kTimeRounding), read as written.
  double time(const json& value, const char* key) const {
    if (value.is_null()) return std::numeric_limits<double>::infinity();
    if (!value.is_number())
      fail(fmt::format("'{}' is {}; expected a time in s, or null (no valid mapping)", key,
                       value.type_name()));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < -kTimeRounding)
      fail(fmt::format("'{}' is {}; expected a finite time >= 0 in s", key, v));
    return v;
  }
  // A figure that may be unknown: absent or null reads as unknown (records written before it).
  std::optional<double> optional_figure(const json& object, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) return std::nullopt;
    return figure(*it, key);
  }
  json parse(std::string_view text) const {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) fail("not JSON text; expected the JSON that `tilescope sweep` writes");
    return j;
  }
};

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

std::vector<SweepOperatorTime> operators_of(const json& value, const RecordReader& r) {
  if (!value.is_array())
    r.fail(fmt::format("the operators are {}; expected an array of operators", value.type_name()));
  std::vector<SweepOperatorTime> out;
  out.reserve(value.size());
  for (const json& o : value) {
    if (!o.is_object())
      r.fail(
          fmt::format("operator {} is {}; expected an object with name, device_s, launch_s "
                      "and bound_by",
                      out.size() + 1, o.type_name()));
    SweepOperatorTime t;
    t.name = r.text(r.field(o, "name"), "name");
    t.device_s = r.time(r.field(o, "device_s"), "device_s");
    t.launch_s = r.time(r.field(o, "launch_s"), "launch_s");
    t.bound_by = r.text(r.field(o, "bound_by"), "bound_by");
    if (const auto it = o.find("converged"); it != o.end()) {
      if (!it->is_boolean())
        r.fail(fmt::format("'converged' is {}; expected true or false", it->type_name()));
      t.converged = it->get<bool>();
    }
    t.mapping = r.text_or(o, "mapping");
    t.mapping_origin = r.text_or(o, "mapping_origin");
    t.energy_j = r.optional_figure(o, "energy_j");
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::string sweep_operators_json(const std::vector<SweepOperatorTime>& operators) {
  return operators_value(operators).dump();
}

std::vector<SweepOperatorTime> sweep_operators_from_json(std::string_view text,
                                                         const SourceLocation& where) {
  const RecordReader r{where, "operators_json"};
  return operators_of(r.parse(text), r);
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

SweepPointRecord sweep_point_from_json(std::string_view text, const SourceLocation& where) {
  const RecordReader r{where, "sweep point"};
  const json j = r.parse(text);
  if (!j.is_object()) r.fail(fmt::format("it is {}; expected an object", j.type_name()));
  SweepPointRecord p;
  p.sweep_key = r.text(r.field(j, "sweep_key"), "sweep_key");
  p.workload_hash = r.text(r.field(j, "workload_hash"), "workload_hash");
  p.parameters_json = r.text(r.field(j, "parameters_json"), "parameters_json");
  p.arch_hash = r.text(r.field(j, "arch_hash"), "arch_hash");
  p.total_s = r.time(r.field(j, "total_s"), "total_s");
  p.cost = r.figure(r.field(j, "cost"), "cost");
  p.energy_j = r.optional_figure(j, "energy_j");
  p.area_m2 = r.optional_figure(j, "area_m2");
  p.operators = operators_of(r.field(j, "operators"), r);
  return p;
}

void check_sweep_point_figures(const SweepPointRecord& p, const SourceLocation& where) {
  auto fail = [&](const std::string& what) { throw InputError(where, what); };
  if (std::isnan(p.total_s) || p.total_s < -kTimeRounding)
    fail(fmt::format("total_s is {}; expected a time >= 0 in s", p.total_s));
  if (!std::isfinite(p.cost) || p.cost < 0)
    fail(fmt::format("cost is {}; expected a finite number >= 0", p.cost));
  for (const auto& [name, figure] :
       {std::pair{"energy_j", p.energy_j}, std::pair{"area_m2", p.area_m2}})
    if (figure && (!std::isfinite(*figure) || *figure < 0))
      fail(
          fmt::format("{} is {}; expected a finite number >= 0, or NULL (unknown)", name, *figure));
}

}  // namespace ts
