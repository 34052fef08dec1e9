#pragma once
// The layout of the results database and the steps that bring an older file up to date. Each
// step takes the file from one schema version (`PRAGMA user_version`) to the next, so a new
// version is one more entry in migration_steps(); all pending steps run in one transaction, so a
// file is never left half-migrated.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace SQLite {
class Database;
}

namespace ts::store {

// `PRAGMA application_id` of a tilescope results database: "TSCP". It tells our files from other
// programs' SQLite files without guessing from table names.
inline constexpr uint32_t kApplicationId = 0x54534350;

struct MigrationStep {
  int from_version = 0;  // the step brings the file from this version to from_version + 1
  std::string what;      // one line, for messages
  std::function<void(SQLite::Database&)> apply;
};

// Every step from an empty file (version 0) to ResultStore::kSchemaVersion, in order.
const std::vector<MigrationStep>& migration_steps();

// Applies, in one immediate transaction, the steps from the file's user_version on, setting
// user_version after each. Returns how many were applied (0 when the file is up to date). When a
// step throws, everything is rolled back and the exception passes on. Throws std::logic_error
// when the steps do not continue one another from the file's version.
int migrate(SQLite::Database& db, std::span<const MigrationStep> steps);

// The SQL of the version-1 layout. tests/fixtures/db/make_fixtures.py reads it out of
// StoreSchema.cpp (the raw string marked `sql`) so that the fixtures use exactly this layout.
const char* schema_v1_sql();

}  // namespace ts::store
