#pragma once
// `tilescope db info|runs|export`: look into a results database, read-only, so that they can run
// while `tilescope measure` is writing to the same file.
#include <cstdint>
#include <optional>
#include <string>

namespace ts::cli {

struct DbInfoOptions {
  std::string db;
  std::string format = "table";  // or json
};

struct DbRunsOptions {
  std::string db;
  std::string format = "table";  // or json
};

struct DbExportOptions {
  std::string db;
  std::optional<int64_t> run;  // unset: the latest run that holds a measurement
  std::string format = "csv";  // or json
  std::string out;             // empty: stdout
};

int run_db_info(const DbInfoOptions& options);
int run_db_runs(const DbRunsOptions& options);
int run_db_export(const DbExportOptions& options);

}  // namespace ts::cli
