// `tilescope db info|runs|export`: look into a results database. All three open it read-only,
// so they can run while `tilescope measure` is writing to the same file.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "Commands.hpp"
#include "common/AtomicFile.hpp"
#include "common/CsvField.hpp"
#include "common/InputError.hpp"
#include "common/OutputPath.hpp"
#include "correlate/CorrelationData.hpp"
#include "measure/ComparedTime.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunLabels.hpp"

namespace ts::cli {
namespace {

struct DbArgs {
  std::string db;
  std::string format;
  std::optional<int64_t> run;
  std::string out;
};

nlohmann::json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s);
}

std::string device_text(const DeviceInfo& d) {
  if (d.name.empty() && d.kind.empty()) return "-";
  return d.kind.empty() ? d.name : fmt::format("{} ({})", d.name, d.kind);
}

int run_info(const DbArgs& a) {
  const ResultStore store(a.db, ResultStore::Mode::read_only);
  std::error_code ec;
  const uintmax_t file_bytes = std::filesystem::file_size(a.db, ec);
  const uintmax_t wal = std::filesystem::file_size(a.db + "-wal", ec);
  const uintmax_t wal_bytes = ec ? 0 : wal;
  int64_t by_status[3] = {0, 0, 0};  // incomplete, complete, cancelled
  const std::vector<RunInfo> runs = store.runs();
  for (const RunInfo& r : runs) ++by_status[static_cast<int>(r.status)];
  const auto counts = store.table_counts();

  if (a.format == "json") {
    nlohmann::json tables = nlohmann::json::object();
    for (const auto& [table, rows] : counts) tables[table] = rows;
    const nlohmann::json info = {{"database", a.db},
                                 {"schema_version", store.schema_version()},
                                 {"newest_schema_version", ResultStore::kSchemaVersion},
                                 {"file_bytes", file_bytes},
                                 {"wal_bytes", wal_bytes},
                                 {"runs",
                                  {{"total", runs.size()},
                                   {"incomplete", by_status[0]},
                                   {"complete", by_status[1]},
                                   {"cancelled", by_status[2]}}},
                                 {"tables", tables}};
    std::cout << info.dump(2) << "\n";
    return 0;
  }
  std::cout << fmt::format("database        {}\n", a.db);
  std::cout << fmt::format("schema version  {} (this build reads up to {})\n",
                           store.schema_version(), ResultStore::kSchemaVersion);
  std::cout << fmt::format("file size       {} bytes ({} bytes of write-ahead log)\n", file_bytes,
                           wal_bytes);
  std::cout << fmt::format("runs            {} ({} incomplete, {} complete, {} cancelled)\n",
                           runs.size(), by_status[0], by_status[1], by_status[2]);
  std::cout << "\ntable           rows\n";
  for (const auto& [table, rows] : counts) std::cout << fmt::format("{:<14}  {:>4}\n", table, rows);
  return 0;
}

int run_runs(const DbArgs& a) {
  const ResultStore store(a.db, ResultStore::Mode::read_only);
  const std::vector<RunInfo> runs = store.runs();
  // What tells each run from the others (the GUI's Run box says the same).
  const std::vector<std::string> labels = run_labels(runs);
  if (a.format == "json") {
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
    std::cout << nlohmann::json{{"database", a.db}, {"runs", rows}}.dump(2) << "\n";
    return 0;
  }
  size_t collector_w = 9, workload_w = 8, device_w = 6;
  for (const RunInfo& r : runs) {
    collector_w = std::max(collector_w, r.start.collector.size());
    workload_w = std::max(workload_w, r.start.workload.size());
    device_w = std::max(device_w, device_text(r.start.device).size());
  }
  // The label last, unpadded: it is the widest column and the one read for a run's identity.
  std::cout << fmt::format("{:>4}  {:<20}  {:<10}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {}\n", "id",
                           "started", "status", "collector", collector_w, "workload", workload_w,
                           "device", device_w, "measurements", "label");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    std::cout << fmt::format("{:>4}  {:<20}  {:<10}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {}\n", r.id,
                             r.started_at, to_string(r.status), r.start.collector, collector_w,
                             r.start.workload, workload_w, device_text(r.start.device), device_w,
                             r.measurement_count, labels[i]);
  }
  if (runs.empty()) std::cout << "(no runs)\n";
  return 0;
}

// The prediction a measurement is compared with: what its timing covers (design.md, "What
// latency means"), in microseconds.
std::optional<double> predicted_us(const ResultStore& store, const Measurement& m,
                                   const std::string& arch_hash) {
  if (arch_hash.empty()) return std::nullopt;
  const auto p = store.prediction(m.op, m.mapping ? m.mapping->hash : std::string(), arch_hash);
  if (!p) return std::nullopt;
  return compared_seconds(*p, m.scope) * 1e6;
}

int run_export(const DbArgs& a) {
  // Before the database is even opened: `--out` over `--db` would replace the runs with a CSV.
  refuse_output_over_inputs({"--out", a.out}, {{"--db", a.db}});
  const ResultStore store(a.db, ResultStore::Mode::read_only);
  std::optional<RunInfo> run;
  if (a.run) {
    run = store.run(*a.run);
    if (!run) {
      const std::vector<RunInfo> runs = store.runs();
      throw InputError(SourceLocation{a.db, 0, 0},
                       runs.empty() ? fmt::format("no run {}: the database holds no runs", *a.run)
                                    : fmt::format("no run {} (its runs are {} to {})", *a.run,
                                                  runs.front().id, runs.back().id));
    }
  } else {
    run = store.run(run_to_read(store, std::nullopt));
  }
  const std::string& arch_hash = run->start.device.arch_hash;
  const std::vector<Measurement> rows = store.measurements(run->id);

  std::ostringstream text;
  if (a.format == "json") {
    nlohmann::json measurements = nlohmann::json::array();
    for (const Measurement& m : rows) {
      const std::optional<double> predicted = predicted_us(store, m, arch_hash);
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
    const nlohmann::json doc = {{"database", a.db},
                                {"run",
                                 {{"id", run->id},
                                  {"started_at", run->started_at},
                                  {"status", std::string(to_string(run->status))},
                                  {"collector", run->start.collector},
                                  {"workload", run->start.workload},
                                  {"device", run->start.device.name},
                                  {"arch_hash", text_or_null(arch_hash)}}},
                                {"measurements", measurements}};
    text << doc.dump(2) << "\n";
  } else {
    text << "suite,name,type,dims,implementation,mapping_hash,timing_scope,repetitions,min_us,"
            "median_us,spread,checked,predicted_us\n";
    for (const Measurement& m : rows) {
      const std::optional<double> predicted = predicted_us(store, m, arch_hash);
      text << fmt::format("{},{},{},{},{},{},{},{},{:.3f},{:.3f},{:.6g},{},{}\n",
                          csv_field(m.op.suite), csv_field(m.op.name), csv_field(m.op.type),
                          csv_field(m.op.dims), csv_field(m.implementation),
                          m.mapping ? m.mapping->hash : std::string(), to_string(m.scope),
                          m.repetitions, m.min_ns / 1e3, m.median_ns / 1e3, m.spread,
                          m.checked ? "true" : "false",
                          predicted ? fmt::format("{:.3f}", *predicted) : std::string());
    }
  }
  if (a.out.empty())
    std::cout << text.str();
  else
    write_file_atomically(a.out, text.str());
  return 0;
}

}  // namespace

CommandAction add_db(CLI::App& app) {
  auto args = std::make_shared<DbArgs>();
  CLI::App* cmd = app.add_subcommand("db", "Look into a results database (read-only)");
  cmd->require_subcommand(1);

  CLI::App* info =
      cmd->add_subcommand("info", "Schema version, rows per table, runs by status, file size");
  info->add_option("--db", args->db, "results database")->required();
  info->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_str("table");

  CLI::App* runs = cmd->add_subcommand("runs", "The runs, oldest first");
  runs->add_option("--db", args->db, "results database")->required();
  runs->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->default_str("table");

  CLI::App* exp = cmd->add_subcommand(
      "export", "One row per measurement of a run, with the prediction for its device's graph");
  exp->add_option("--db", args->db, "results database")->required();
  exp->add_option("--run", args->run, "run id (default: the latest run that holds a measurement)");
  exp->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"csv", "json"}))
      ->default_str("csv");
  exp->add_option("--out", args->out, "write to FILE (via a temporary file) instead of stdout");

  return [args, info, runs, exp] {
    if (info->parsed()) return run_info(*args);
    if (runs->parsed()) return run_runs(*args);
    if (exp->parsed()) {
      if (args->format.empty()) args->format = "csv";
      return run_export(*args);
    }
    return 2;
  };
}

}  // namespace ts::cli
