#pragma once
// An SQLite database generated from a fuzz input, for the targets whose loader reads SQLite (an
// Nsight Systems export, a sweep store): mutating the bytes of an SQLite file mostly breaks its
// page structure, which SQLite refuses before any loader sees a row, so the input is instead read
// as tables and rows that are written into a fresh database with SQLite itself. The text is
// line by line (seeds are readable: tests/fixtures/fuzz-corpus/nsys/, .../sweep_store/):
//
//   # a comment
//   @TABLE NAME COLUMN COLUMN ...    a table (columns without declared types, so each value keeps
//                                    the type written); the rows below go into it
//   @VIEW NAME COLUMN COLUMN ...     a view of those columns whose rows never end (a recursive
//                                    CTE): what a reader must refuse rather than read
//   VALUE|VALUE|...                  a row of the current table; missing values are NULL
//
// A value is NULL, an integer (64-bit), a real (1e306, inf, -inf, nan), x'HEX' (a blob), or
// else text as written. Rows before any @TABLE go into the default table (`default_table`, with
// `default_columns`), if any. A statement SQLite refuses (a name taken, a constraint of an
// existing table) is skipped: the database holds what could be written.
#include <string>
#include <vector>

namespace ts::fuzz {

struct GeneratedTables {
  std::string default_table;                 // empty: rows before any @TABLE are dropped
  std::vector<std::string> default_columns;  // its columns, in the order values are written
};

// Writes the tables and rows of `text` into the database at `path` (which may already hold a
// schema, as a sweep store's template does). Throws std::runtime_error when the database cannot
// be opened at all.
void write_generated_sqlite(const std::string& path, const std::string& text,
                            const GeneratedTables& tables = {});

}  // namespace ts::fuzz
