#pragma once
// The results database: one SQLite file (WAL) with devices, runs, operators, mappings,
// measurements and predictions. Every write is its own transaction, so a crash or Ctrl-C keeps
// every completed measurement and never leaves half a row; a run stays `incomplete` until
// finish_run. Older schemas are migrated on open (in one transaction); a file that is not a
// tilescope database, is corrupt, or has a newer schema is refused with an InputError naming the
// file, and nothing on disk is changed.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "measure/MeasurementRecord.hpp"
#include "measure/SweepPointRecord.hpp"

namespace SQLite {
class Database;
}

namespace ts {

class ResultStore {
 public:
  enum class Mode {
    read_only,  // the file must exist; nothing is written (not even a migration)
    read_write  // created when missing; migrated when older
  };
  static constexpr int kSchemaVersion = 4;
  // Read-only opens read files back to this version as they are (a read never migrates);
  // columns added since read as "not known".
  static constexpr int kOldestReadableVersion = 1;

  explicit ResultStore(const std::string& path, Mode mode = Mode::read_write);
  ~ResultStore();
  ResultStore(ResultStore&&) noexcept;
  ResultStore& operator=(ResultStore&&) noexcept;

  const std::string& path() const { return path_; }
  int schema_version() const;

  // Runs `writes` (calls of the writers below) as one transaction: all of them are stored, or,
  // when `writes` throws, none (the exception is passed on). What importers use, so that a
  // failed import leaves the database as it was.
  void write_all(const std::function<void()>& writes);

  int64_t begin_run(const RunStart& start);  // status incomplete, started_at now
  void add_measurement(int64_t run, const Measurement& m);
  void finish_run(int64_t run, RunStatus status);  // sets finished_at
  // Replaces an earlier prediction with the same (operator, mapping, arch hash).
  void add_prediction(const PredictionRecord& p);

  std::vector<RunInfo> runs() const;
  std::optional<RunInfo> run(int64_t id) const;
  // The run a command takes when none is named: the latest that holds at least one
  // measurement, so that an empty run (a `measure` killed at its start) is never the default.
  std::optional<int64_t> default_run() const;
  // `rows_read`, when given, is called with the count of rows read so far every `every` rows
  // (a progress figure for a large run; it may throw to abandon the read).
  std::vector<Measurement> measurements(int64_t run,
                                        const std::function<void(size_t rows_read)>& rows_read = {},
                                        size_t every = 1024) const;
  // The prediction for an operator and mapping (mapping_hash empty: mapper-chosen) on a graph.
  std::optional<PredictionRecord> prediction(const OperatorKey& op, const std::string& mapping_hash,
                                             const std::string& arch_hash) const;
  std::vector<PredictionRecord> predictions(const std::string& arch_hash) const;
  // A finished sweep point, in its own transaction (a crash keeps every point stored before).
  // A point whose key is stored already is left as it is.
  void add_sweep_point(const SweepPointRecord& point);
  // Rewrites the times and operators of points already stored (the sweep's mapping exchange), all
  // in one transaction: a failure or a crash leaves every point as it was.
  void update_sweep_points(const std::vector<SweepPointRecord>& points);
  // The parameters_json of the points stored for a sweep and workload (what a rerun skips).
  std::vector<std::string> sweep_point_keys(const std::string& sweep_key,
                                            const std::string& workload_hash) const;
  // Those points whole, ordered by parameters_json. A file older than schema 3 has none. Each
  // row is checked as it is read (SweepPointRecord.hpp): a row that does not read, or more than
  // kMaxSweepPoints points (common/WorkLimits.hpp), is an InputError naming the file (and the
  // row's id).
  std::vector<SweepPointRecord> sweep_points(const std::string& sweep_key,
                                             const std::string& workload_hash) const;
  // The sweeps stored, as (sweep_key, workload_hash), the one with the latest point first (what
  // `report --sweep` shows). A file older than schema 3 has none.
  std::vector<std::pair<std::string, std::string>> sweeps() const;
  // Ends write-ahead logging for this connection, folding the log into the main file, so that
  // the file alone is the whole database (before it is moved; measure/ImportTransaction).
  void fold_into_one_file();
  // Rows per table, in the order the schema declares them (for `tilescope db info`).
  std::vector<std::pair<std::string, int64_t>> table_counts() const;

 private:
  std::string path_;
  Mode mode_ = Mode::read_write;
  std::unique_ptr<SQLite::Database> db_;
  bool writing_all_ = false;           // inside write_all: the writers join its transaction
  int file_version_ = kSchemaVersion;  // what a read-only open found
};

// The run a command reads: `run` when given, else the store's default (the latest run with a
// measurement). Throws InputError naming the file when there is no default: no runs, or only
// runs without a measurement.
int64_t run_to_read(const ResultStore& store, std::optional<int64_t> run);

}  // namespace ts
