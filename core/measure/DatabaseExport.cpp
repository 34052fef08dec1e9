#include "measure/DatabaseExport.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/CsvField.hpp"
#include "common/InputError.hpp"
#include "measure/ComparedTime.hpp"
#include "measure/RunLabels.hpp"

namespace ts {
namespace {

nlohmann::json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

}  // namespace

DatabaseInfo database_info(const ResultStore& store) {
  DatabaseInfo info;
  info.database = store.path();
  const std::string& database = info.database;
  info.schema_version = store.schema_version();
  std::error_code ec;
  info.file_bytes = std::filesystem::file_size(database, ec);
  if (ec) info.file_bytes = 0;
  const uintmax_t wal = std::filesystem::file_size(database + "-wal", ec);
  info.wal_bytes = ec ? 0 : wal;
  const std::vector<RunInfo> runs = store.runs();
  info.runs = runs.size();
  for (const RunInfo& r : runs) {
    if (r.status == RunStatus::incomplete) ++info.incomplete;
    if (r.status == RunStatus::complete) ++info.complete;
    if (r.status == RunStatus::cancelled) ++info.cancelled;
  }
  info.tables = store.table_counts();
  return info;
}

std::string database_info_json(const DatabaseInfo& info) {
  nlohmann::json tables = nlohmann::json::object();
  for (const auto& [table, rows] : info.tables) tables[table] = rows;
  const nlohmann::json doc = {{"database", info.database},
                              {"schema_version", info.schema_version},
                              {"newest_schema_version", ResultStore::kSchemaVersion},
                              {"file_bytes", info.file_bytes},
                              {"wal_bytes", info.wal_bytes},
                              {"runs",
                               {{"total", info.runs},
                                {"incomplete", info.incomplete},
                                {"complete", info.complete},
                                {"cancelled", info.cancelled}}},
                              {"tables", tables}};
  return doc.dump(2) + "\n";
}

std::string runs_json(const ResultStore& store) {
  const std::vector<RunInfo> runs = store.runs();
  const std::vector<std::string> labels = run_labels(runs);
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    rows.push_back({{"id", r.id},
                    {"label", labels[i]},
                    {"started_at", r.started_at},
                    {"finished_at", text_or_null(r.finished_at)},
                    {"status", std::string(to_string(r.status))},
                    {"collector", r.start.collector},
                    {"workload", r.start.workload},
                    {"tool_version", r.start.tool_version},
                    {"device",
                     {{"name", r.start.device.name},
                      {"kind", r.start.device.kind},
                      {"arch_hash", r.start.device.arch_hash}}},
                    {"measurements", r.measurement_count}});
  }
  return nlohmann::json{{"database", store.path()}, {"runs", rows}}.dump(2) + "\n";
}

RunExport export_run(const ResultStore& store, std::optional<int64_t> run,
                     const std::string& graph_hash) {
  RunExport e;
  e.database = store.path();
  const int64_t id = run_to_read(store, run);
  std::optional<RunInfo> info = store.run(id);
  if (!info) {
    const std::vector<RunInfo> runs = store.runs();
    throw InputError(SourceLocation{store.path(), 0, 0},
                     runs.empty() ? fmt::format("no run {}: the database holds no runs", id)
                                  : fmt::format("no run {} (its runs are {} to {})", id,
                                                runs.front().id, runs.back().id));
  }
  e.run = std::move(*info);
  e.measurements = store.measurements(e.run.id);
  const std::string& arch_hash =
      e.run.start.device.arch_hash.empty() ? graph_hash : e.run.start.device.arch_hash;
  for (const Measurement& m : e.measurements) {
    std::optional<double> predicted;
    if (!arch_hash.empty())
      if (const auto p =
              store.prediction(m.op, m.mapping ? m.mapping->hash : std::string(), arch_hash))
        predicted = compared_seconds(*p, m.scope) * 1e6;
    e.predicted_us.push_back(predicted);
  }
  return e;
}

std::string run_export_json(const RunExport& e) {
  nlohmann::json measurements = nlohmann::json::array();
  for (size_t i = 0; i < e.measurements.size(); ++i) {
    const Measurement& m = e.measurements[i];
    const std::optional<double>& predicted = e.predicted_us[i];
    measurements.push_back(
        {{"suite", m.op.suite},
         {"name", m.op.name},
         {"type", m.op.type},
         {"dims", m.op.dims},
         {"implementation", m.implementation},
         {"mapping_hash", m.mapping ? nlohmann::json(m.mapping->hash) : nlohmann::json(nullptr)},
         {"timing_scope", std::string(to_string(m.scope))},
         {"repetitions", m.repetitions},
         {"min_us", m.min_ns / 1e3},
         {"median_us", m.median_ns / 1e3},
         {"spread", m.spread},
         {"checked", m.checked},
         {"predicted_us", predicted ? nlohmann::json(*predicted) : nlohmann::json(nullptr)}});
  }
  const nlohmann::json doc = {{"database", e.database},
                              {"run",
                               {{"id", e.run.id},
                                {"started_at", e.run.started_at},
                                {"status", std::string(to_string(e.run.status))},
                                {"collector", e.run.start.collector},
                                {"workload", e.run.start.workload},
                                {"device", e.run.start.device.name},
                                {"arch_hash", text_or_null(e.run.start.device.arch_hash)}}},
                              {"measurements", measurements}};
  return doc.dump(2) + "\n";
}

std::string run_export_csv(const RunExport& e) {
  std::string text =
      "suite,name,type,dims,implementation,mapping_hash,timing_scope,repetitions,min_us,"
      "median_us,spread,checked,predicted_us\n";
  for (size_t i = 0; i < e.measurements.size(); ++i) {
    const Measurement& m = e.measurements[i];
    const std::optional<double>& predicted = e.predicted_us[i];
    text +=
        fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.6g},{},{}\n", csv_field(m.op.suite),
                    csv_field(m.op.name), csv_field(m.op.type), csv_field(m.op.dims),
                    csv_field(m.implementation), m.mapping ? m.mapping->hash : std::string(),
                    to_string(m.scope), m.repetitions, m.min_ns / 1e3, m.median_ns / 1e3, m.spread,
                    m.checked ? "true" : "false",
                    predicted ? fmt::format("{:.3f}", *predicted) : std::string());
  }
  return text;
}

}  // namespace ts
