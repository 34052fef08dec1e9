#include "report/ComparisonExport.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/CsvField.hpp"

namespace ts {
namespace {

nlohmann::json time_json(const ComparedGraph& graph, const TimeOnGraph& t) {
  return {{"graph", graph.label},
          {"device_us", t.device_us},
          {"launch_overhead_us", t.launch_us},
          {"time_us", t.time_us()},
          {"speedup", t.speedup},  // NaN (0 against 0) is written null
          {"bound_by", t.bound_by},
          {"bound_moved", t.bound_moved},
          // null where the graph does not price everything (docs/energy.md)
          {"energy_pj", t.energy_j ? nlohmann::json(*t.energy_j * 1e12) : nlohmann::json()}};
}

// An operator's entry also says where its mapping came from (the total has none).
nlohmann::json operator_time_json(const ComparedGraph& graph, const TimeOnGraph& t) {
  nlohmann::json j = time_json(graph, t);
  j["mapping"] = t.mapping;
  return j;
}

// The shortest text that reads back as the same double ("{}"), so nothing is lost.
std::string csv_row(const std::string& row, const std::string& op, const std::string& type,
                    const std::string& shape, const ComparedGraph& graph, const TimeOnGraph& t) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", row, csv_field(op), type,
                     csv_field(shape), graph.label, csv_field(graph.name), t.device_us, t.launch_us,
                     t.time_us(), t.speedup, csv_field(t.bound_by), csv_field(t.bound_moved));
}

}  // namespace

std::string comparison_json(const ArchitectureComparison& comparison) {
  nlohmann::json graphs = nlohmann::json::array();
  for (size_t g = 0; g < comparison.graphs.size(); ++g) {
    const ComparedGraph& graph = comparison.graphs[g];
    nlohmann::json entry = {{"label", graph.label}, {"name", graph.name}, {"source", graph.source}};
    entry["area_um2"] = graph.area_m2 ? nlohmann::json(*graph.area_m2 * 1e12) : nlohmann::json();
    entry["total"] = time_json(graph, comparison.total[g]);
    entry["moved_bounds"] = comparison.moved_bounds[g];
    graphs.push_back(entry);
  }
  nlohmann::json operators = nlohmann::json::array();
  for (const ComparedOperator& op : comparison.operators) {
    nlohmann::json on = nlohmann::json::array();
    for (size_t g = 0; g < comparison.graphs.size(); ++g)
      on.push_back(operator_time_json(comparison.graphs[g], op.on_graph[g]));
    operators.push_back({{"name", op.name}, {"type", op.type}, {"shape", op.shape}, {"on", on}});
  }
  const nlohmann::json document = {{"schema_version", 1},
                                   {"workload", comparison.workload},
                                   {"graphs", graphs},
                                   {"operators", operators}};
  return document.dump(2);
}

std::string comparison_csv(const ArchitectureComparison& comparison) {
  std::string out =
      "row,operator,type,shape,graph,graph_name,device_us,launch_overhead_us,time_us,speedup,"
      "bound_by,bound_moved\n";
  for (const ComparedOperator& op : comparison.operators)
    for (size_t g = 0; g < comparison.graphs.size(); ++g)
      out += csv_row("operator", op.name, op.type, op.shape, comparison.graphs[g], op.on_graph[g]);
  for (size_t g = 0; g < comparison.graphs.size(); ++g)
    out += csv_row("total", "", "", "", comparison.graphs[g], comparison.total[g]);
  return out;
}

}  // namespace ts
