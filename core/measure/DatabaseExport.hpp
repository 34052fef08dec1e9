#pragma once
// What `db info`, `db runs` and `db export` print in their machine-readable forms: the schemas
// of a results database's contents as JSON and CSV, kept in core so that every face (the CLI,
// a script, a test) reads the same keys. docs/store.md lists them.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "measure/ResultStore.hpp"

namespace ts {

// `db info`: schema version, file and write-ahead-log sizes, runs by status, rows per table.
struct DatabaseInfo {
  std::string database;
  int schema_version = 0;
  uintmax_t file_bytes = 0, wal_bytes = 0;
  size_t runs = 0;
  int64_t incomplete = 0, complete = 0, cancelled = 0;
  std::vector<std::pair<std::string, int64_t>> tables;  // name, rows
};
DatabaseInfo database_info(const ResultStore& store);
std::string database_info_json(const DatabaseInfo& info);

// `db runs --format json`: every run, oldest first, with the label that tells it from the others.
std::string runs_json(const ResultStore& store);

// One run's measurements, each with the prediction for its device's graph stored beside it, in
// the unit and scope it is compared with (measure/ComparedTime.hpp); none where the run names no
// graph or none was stored.
struct RunExport {
  std::string database;
  RunInfo run;
  std::vector<Measurement> measurements;
  std::vector<std::optional<double>> predicted_us;  // one per measurement
};

// `run` none: the latest run that holds a measurement. `graph_hash`: the graph whose stored
// predictions to take when the run names none of its own (an imported trace whose graph was only
// recorded, predicted later by correlate). Throws InputError naming the database when the run is
// not in it.
RunExport export_run(const ResultStore& store, std::optional<int64_t> run,
                     const std::string& graph_hash = {});
std::string run_export_json(const RunExport& e);
std::string run_export_csv(const RunExport& e);

}  // namespace ts
