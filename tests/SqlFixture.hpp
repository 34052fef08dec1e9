#pragma once
// SQLite fixtures are committed as the SQL text that builds them (readable, diffable), not as
// binary files: a test builds the database from the .sql here, with SQLite's C API, which both
// the unit and the CLI tests link.
#include <sqlite3.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ts::test {

// Builds `db_path` (which must not exist) by running every statement of `sql_path`.
inline void build_sqlite_from_sql(const std::string& sql_path, const std::string& db_path) {
  std::ifstream in(sql_path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + sql_path);
  std::ostringstream sql;
  sql << in.rdbuf();
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot create " + db_path);
  }
  char* error = nullptr;
  const int status = sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  if (status != SQLITE_OK) throw std::runtime_error(sql_path + ": " + message);
}

}  // namespace ts::test
