#include "measure/StoreSchema.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <stdexcept>

namespace ts::store {
namespace {

// Version 1. Text columns are NOT NULL with '' for "not known" so that the UNIQUE keys compare
// as intended (SQLite treats every NULL as distinct); the exceptions are the NULLs that mean
// something: runs.finished_at (not finished yet), runs.device_id (no device recorded) and
// measurements.mapping_id (a black-box kernel, e.g. a vendor library, has no mapping).
// application_id is set here, in the same transaction as the tables, so a file either is a
// complete tilescope database or is still empty.
constexpr const char* kSchemaV1 = R"sql(
PRAGMA application_id = 1414742864;

CREATE TABLE devices (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  arch_hash TEXT NOT NULL DEFAULT '',
  properties_json TEXT NOT NULL DEFAULT '{}',
  UNIQUE (name, kind, arch_hash, properties_json)
);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL DEFAULT 'incomplete'
    CHECK (status IN ('incomplete', 'complete', 'cancelled')),
  collector TEXT NOT NULL,
  workload TEXT NOT NULL DEFAULT '',
  tool_version TEXT NOT NULL DEFAULT '',
  settings_json TEXT NOT NULL DEFAULT '{}',
  device_id INTEGER REFERENCES devices (id)
);

CREATE TABLE operators (
  id INTEGER PRIMARY KEY,
  suite TEXT NOT NULL,
  name TEXT NOT NULL,
  type TEXT NOT NULL DEFAULT '',
  dims TEXT NOT NULL,
  dtypes TEXT NOT NULL,
  op_class TEXT NOT NULL DEFAULT '',
  flops REAL NOT NULL DEFAULT 0,
  spec TEXT NOT NULL DEFAULT '',
  UNIQUE (suite, name, dims, dtypes)
);

CREATE TABLE mappings (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL DEFAULT '',
  yaml TEXT NOT NULL DEFAULT ''
);

CREATE TABLE measurements (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id),
  operator_id INTEGER NOT NULL REFERENCES operators (id),
  mapping_id INTEGER REFERENCES mappings (id),
  implementation TEXT NOT NULL,
  timing_scope TEXT NOT NULL CHECK (timing_scope IN ('device', 'host_call')),
  repetitions INTEGER NOT NULL,
  min_ns REAL NOT NULL,
  median_ns REAL NOT NULL,
  spread REAL NOT NULL,
  max_error REAL NOT NULL,
  checked INTEGER NOT NULL CHECK (checked IN (0, 1))
);
CREATE INDEX measurements_by_run ON measurements (run_id);

CREATE TABLE predictions (
  id INTEGER PRIMARY KEY,
  operator_id INTEGER NOT NULL REFERENCES operators (id),
  mapping_hash TEXT NOT NULL DEFAULT '',
  arch_hash TEXT NOT NULL,
  arch_name TEXT NOT NULL DEFAULT '',
  device_s REAL NOT NULL,
  launch_s REAL NOT NULL,
  bound_by TEXT NOT NULL DEFAULT '',
  chosen_mapping_yaml TEXT NOT NULL DEFAULT '',
  UNIQUE (operator_id, mapping_hash, arch_hash)
);
CREATE INDEX predictions_by_arch ON predictions (arch_hash);
)sql";

// Version 2: how far a measurement can be trusted. median_ci is the half-width of the 95 %
// interval of the median over the median (NULL: not known, e.g. an import or a version-1 row);
// unstable says why a collector did not trust the point ('' when it did, or did not judge).
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE measurements ADD COLUMN median_ci REAL;
ALTER TABLE measurements ADD COLUMN unstable TEXT NOT NULL DEFAULT '';
)sql";

// Version 3: the points of architecture sweeps (`tilescope sweep`). One row per point, keyed by
// the sweep (base graph and mapper settings), the workload and the parameter values, so that a
// rerun skips the points already stored. operators_json holds the per-operator times
// (measure/SweepPointRecord) rather than a row each: a point is written and read whole.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE sweep_points (
  id INTEGER PRIMARY KEY,
  sweep_key TEXT NOT NULL,
  workload_hash TEXT NOT NULL,
  parameters_json TEXT NOT NULL,
  arch_hash TEXT NOT NULL,
  total_s REAL NOT NULL,
  cost REAL NOT NULL,
  operators_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (sweep_key, workload_hash, parameters_json)
);
)sql";

// Version 4: a sweep point's suite energy (J) and graph area (m^2), NULL where not known (the
// graph gives no figures, a strategy grid, or a point stored before version 4). Each operator's
// energy is a field of operators_json (measure/SweepPointRecord), absent where not known.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE sweep_points ADD COLUMN energy_j REAL;
ALTER TABLE sweep_points ADD COLUMN area_m2 REAL;
)sql";

int user_version(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

}  // namespace

const char* schema_v1_sql() { return kSchemaV1; }

const std::vector<MigrationStep>& migration_steps() {
  static const std::vector<MigrationStep> steps = {
      {0, "create the version-1 tables", [](SQLite::Database& db) { db.exec(kSchemaV1); }},
      {1, "add the stability of each measurement",
       [](SQLite::Database& db) { db.exec(kSchemaV2); }},
      {2, "add the points of architecture sweeps",
       [](SQLite::Database& db) { db.exec(kSchemaV3); }},
      {3, "add the energy and area of sweep points",
       [](SQLite::Database& db) { db.exec(kSchemaV4); }},
  };
  return steps;
}

int migrate(SQLite::Database& db, std::span<const MigrationStep> steps) {
  if (steps.empty()) return 0;
  const int target = steps.back().from_version + 1;
  // Most opens find the file up to date: check before taking the write lock.
  if (user_version(db) >= target) return 0;

  // Immediate: two programs opening the same old file at once must not both migrate it.
  SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
  int version = user_version(db);
  int applied = 0;
  for (const MigrationStep& step : steps) {
    if (step.from_version < version) continue;
    if (step.from_version != version)
      throw std::logic_error(fmt::format(
          "results database migration: no step from schema {} (the next step starts at {})",
          version, step.from_version));
    step.apply(db);
    ++version;
    db.exec(fmt::format("PRAGMA user_version = {}", version));
    ++applied;
  }
  transaction.commit();
  return applied;
}

}  // namespace ts::store
