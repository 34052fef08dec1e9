#include "trace/NsysExport.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "common/CheckedArithmetic.hpp"
#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "common/Utf8.hpp"
#include "trace/NsysNvtxText.hpp"
#include "trace/TraceInputLimits.hpp"

namespace ts {
namespace {

constexpr const char* kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr const char* kRuntimeTable = "CUPTI_ACTIVITY_KIND_RUNTIME";
constexpr const char* kNvtxTable = "NVTX_EVENTS";
constexpr const char* kStringTable = "StringIds";
constexpr const char* kGpuTable = "TARGET_INFO_GPU";
constexpr const char* kMetaTable = "EXPORT_META_DATA";
// The kernel's name columns, the best first: the demangled signature is what name rules
// (cuBLAS, CUTLASS) are written against.
const std::vector<std::string> kKernelNameColumns{"demangledName", "shortName", "mangledName"};

// Where a row of a table is, for messages: the file and the row's rowid (as a line).
SourceLocation row_at(const std::string& path, int64_t rowid) {
  return SourceLocation{
      path, rowid > 0 && rowid <= std::numeric_limits<int>::max() ? static_cast<int>(rowid) : 0, 0};
}

[[noreturn]] void over_row_limit(const std::string& path, const std::string& table, int64_t rows) {
  throw InputError(SourceLocation{path, 0, 0},
                   fmt::format("{} has more than {} rows (row {} is past it); expected at most {} "
                               "rows in one table of an export (docs/formats.md, \"Limits of "
                               "trace and measurement files\")",
                               table, kNsysRowLimit, rows, kNsysRowLimit));
}

// Steps a statement over one table's rows, refusing the row past kNsysRowLimit: what is read
// from an export is bounded whatever it holds.
class TableRows {
 public:
  // The LIMIT bounds SQLite's own work too (a sort keeps at most that many rows).
  TableRows(SQLite::Database& db, const std::string& sql, std::string path, std::string table)
      : s_(db, fmt::format("{} LIMIT {}", sql, kNsysRowLimit + 1)),
        path_(std::move(path)),
        table_(std::move(table)) {}
  bool next() {
    if (!s_.executeStep()) return false;
    if (++rows_ > kNsysRowLimit) over_row_limit(path_, table_, rows_);
    return true;
  }
  SQLite::Statement& operator*() { return s_; }
  SQLite::Statement* operator->() { return &s_; }

 private:
  SQLite::Statement s_;
  std::string path_, table_;
  int64_t rows_ = 0;
};

// A time column of a row (start, end, in ns): an integer, as the exporter writes it, within
// kTraceTimestampLimitNs. Anything else is an InputError at the row.
int64_t time_ns(const SQLite::Column& c, const std::string& path, int64_t rowid,
                const std::string& table, const char* column) {
  if (!c.isInteger())
    throw InputError(
        row_at(path, rowid),
        fmt::format("{} row {}: `{}` is {}; expected an integer time in ns", table, rowid, column,
                    c.isNull()    ? "NULL"
                    : c.isFloat() ? fmt::format("{}", c.getDouble())
                                  : "'" + c.getString() + "'"));
  const int64_t ns = c.getInt64();
  if (const auto problem =
          timestamp_problem(static_cast<double>(ns), std::string("`") + column + "`"))
    throw InputError(row_at(path, rowid), fmt::format("{} row {}: {}", table, rowid, *problem));
  return ns;
}

// A text column of a row (a name, a range's text): UTF-8, since names go into JSON and SQLite
// text, which need it. An InputError at the row otherwise; NULL reads as empty.
std::string utf8_text(const SQLite::Column& c, const std::string& path, int64_t rowid,
                      const std::string& table, const char* column) {
  std::string text = c.getString();
  if (const size_t bad = first_invalid_utf8(text); bad != std::string::npos)
    throw InputError(row_at(path, rowid), fmt::format("{} row {}: `{}`: {}; expected UTF-8 text",
                                                      table, rowid, column, utf8_fault(text, bad)));
  return text;
}

// The duration end - start of a row: finite, >= 0 and within kTraceDurationLimitNs, or an
// InputError at the row (an end before its start is a broken export, never a negative time).
double duration_ns(int64_t start, int64_t end, const std::string& path, int64_t rowid,
                   const std::string& table) {
  const double duration = static_cast<double>(end - start);
  if (const auto problem = duration_problem(duration, "`end` - `start`"))
    throw InputError(row_at(path, rowid), fmt::format("{} row {}: start {}, end {}: {}", table,
                                                      rowid, start, end, *problem));
  return duration;
}

// The tables of an export and the columns of each, looked up once.
class ExportLayout {
 public:
  ExportLayout(SQLite::Database& db, std::string path) : db_(db), path_(std::move(path)) {
    // Only a table that keeps rows in the file (a b-tree: rootpage > 0) is read. Nsight Systems
    // writes no views, and a view or a virtual table named like one of its tables can compute
    // rows without end (a recursive view): such a name is refused where it is needed.
    SQLite::Statement s(db_, "SELECT name, type, rootpage FROM sqlite_master");
    int64_t rows = 0;
    while (s.executeStep()) {
      if (++rows > kNsysRowLimit) over_row_limit(path_, "sqlite_master", rows);
      const std::string name = s.getColumn(0).getString();
      const std::string type = s.getColumn(1).getString();
      if (type == "table" && s.getColumn(2).getInt64() > 0)
        tables_.insert(name);
      else if (type == "table" || type == "view")
        not_tables_.emplace(name, type == "view" ? "a view" : "a virtual table");
    }
  }
  bool has_table(const std::string& table) const { return tables_.count(table) > 0; }
  bool has(const std::string& table, const std::string& column) {
    return columns(table).count(column) > 0;
  }
  const std::set<std::string>& columns(const std::string& table) {
    auto it = columns_.find(table);
    if (it != columns_.end()) return it->second;
    std::set<std::string>& names = columns_[table];
    if (has_table(table)) {
      // The table's name comes from sqlite_master, not from the file's rows: quoting it is safe.
      SQLite::Statement s(db_, "PRAGMA table_info(\"" + table + "\")");
      while (s.executeStep()) names.insert(s.getColumn(1).getString());
    }
    return names;
  }
  void require_table(const std::string& table, const std::string& why) const {
    if (const auto it = not_tables_.find(table); it != not_tables_.end())
      throw InputError(SourceLocation{path_, 0, 0},
                       fmt::format("{} is {}, not a table; expected an Nsight Systems SQLite "
                                   "export (nsys export --type sqlite), whose {} is a table of {}",
                                   table, it->second, table, why));
    if (!has_table(table))
      throw InputError(SourceLocation{path_, 0, 0},
                       fmt::format("no table {}; expected an Nsight Systems SQLite export (nsys "
                                   "export --type sqlite) with {}",
                                   table, why));
  }
  void require(const std::string& table, const std::string& column, const std::string& why) {
    require_table(table, why);
    if (!has(table, column))
      throw InputError(SourceLocation{path_, 0, 0},
                       fmt::format("table {} has no column '{}'; expected {} (found {})", table,
                                   column, why, join_names(sorted(columns(table)))));
  }
  // `column` when the table has it, NULL otherwise: one SELECT serves every schema version.
  std::string column_or_null(const std::string& table, const std::string& column) {
    return has(table, column) ? "\"" + column + "\"" : "NULL";
  }

 private:
  static std::vector<std::string> sorted(const std::set<std::string>& names) {
    return {names.begin(), names.end()};
  }
  SQLite::Database& db_;
  std::string path_;
  std::set<std::string> tables_;
  std::map<std::string, std::string> not_tables_;  // views and virtual tables: what each is
  std::map<std::string, std::set<std::string>> columns_;
};

void refuse_non_sqlite(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open the file for reading");
  char header[16] = {};
  in.read(header, sizeof header);
  if (std::string_view(header, static_cast<size_t>(in.gcount())) !=
      std::string_view("SQLite format 3\0", 16))
    throw InputError(SourceLocation{path, 1, 1},
                     "not an SQLite file; expected an Nsight Systems export (nsys export --type "
                     "sqlite report.nsys-rep)");
}

std::unordered_map<int64_t, std::string> string_ids(SQLite::Database& db, const std::string& path) {
  std::unordered_map<int64_t, std::string> out;
  TableRows s(db, "SELECT rowid, id, value FROM StringIds", path, kStringTable);
  while (s.next())
    out.emplace(
        s->getColumn(1).getInt64(),
        utf8_text(s->getColumn(2), path, s->getColumn(0).getInt64(), kStringTable, "value"));
  return out;
}

// `EXPORT_SCHEMA_VERSION`, or its MAJOR / MINOR / MICRO rows joined; empty when none is there.
std::string schema_version(SQLite::Database& db, ExportLayout& layout, const std::string& path) {
  if (!layout.has(kMetaTable, "name") || !layout.has(kMetaTable, "value")) return {};
  std::map<std::string, std::string> rows;
  TableRows s(db, "SELECT rowid, name, value FROM EXPORT_META_DATA", path, kMetaTable);
  while (s.next())
    rows[s->getColumn(1).getString()] =
        utf8_text(s->getColumn(2), path, s->getColumn(0).getInt64(), kMetaTable, "value");
  if (auto it = rows.find("EXPORT_SCHEMA_VERSION"); it != rows.end()) return it->second;
  std::string version;
  for (const char* part : {"MAJOR", "MINOR", "MICRO"}) {
    const auto it = rows.find(std::string("EXPORT_SCHEMA_VERSION_") + part);
    if (it == rows.end()) break;
    version += (version.empty() ? "" : ".") + it->second;
  }
  return version;
}

struct Launch {
  int64_t start_ns = 0;
  int64_t global_tid = 0;
};

// When and on which host thread each kernel was launched (the runtime call with its correlation
// id): the shared step (KernelOperatorMatch) ties it to the innermost NVTX range around that.
void read_launches(SQLite::Database& db, ExportLayout& layout, TraceEvents& events) {
  const std::string& path = events.file;
  for (const char* column : {"correlationId", "start", "globalTid"})
    if (!layout.has(kRuntimeTable, column)) {
      events.notes.push_back(
          fmt::format("no {}.{}: kernels are not tied to the NVTX ranges "
                      "around their launches",
                      kRuntimeTable, column));
      return;
    }
  std::unordered_map<int64_t, Launch> launch_of;
  TableRows s(db, "SELECT rowid, correlationId, start, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME",
              path, kRuntimeTable);
  while (s.next())
    if (!s->getColumn(1).isNull() && !s->getColumn(3).isNull()) {
      const int64_t rowid = s->getColumn(0).getInt64();
      launch_of.emplace(s->getColumn(1).getInt64(),
                        Launch{time_ns(s->getColumn(2), path, rowid, kRuntimeTable, "start"),
                               s->getColumn(3).getInt64()});
    }
  for (TraceKernel& k : events.kernels)
    if (const auto it = launch_of.find(k.correlation_id); it != launch_of.end()) {
      k.launch_ns = static_cast<double>(it->second.start_ns);
      k.launch_thread = it->second.global_tid;
    }
}

// NVTX push/pop and start/end ranges as operators on the thread that opened them (a start/end
// range closed on another thread still belongs to its opener's).
void read_nvtx_ranges(SQLite::Database& db, ExportLayout& layout,
                      const std::unordered_map<int64_t, std::string>& strings,
                      TraceEvents& events) {
  if (!layout.has_table(kNvtxTable)) {
    events.notes.push_back("no NVTX_EVENTS: no NVTX ranges name the kernels' operators");
    return;
  }
  for (const char* column : {"start", "end", "eventType", "globalTid"})
    if (!layout.has(kNvtxTable, column)) {
      events.notes.push_back(
          fmt::format("no {}.{}: the NVTX ranges are left out", kNvtxTable, column));
      return;
    }
  const std::string& path = events.file;
  TableRows s(db,
              fmt::format("SELECT rowid, start, end, globalTid, {}, {} FROM "
                          "NVTX_EVENTS WHERE eventType IN ({}, {}) ORDER BY start",
                          layout.column_or_null(kNvtxTable, "text"),
                          layout.column_or_null(kNvtxTable, "textId"), kNvtxPushPopRange,
                          kNvtxStartEndRange),
              path, kNvtxTable);
  size_t unended = 0;
  while (s.next()) {
    if (s->getColumn(2).isNull() || s->getColumn(3).isNull()) {
      ++unended;  // a push without its pop (the profile stopped inside it)
      continue;
    }
    const int64_t rowid = s->getColumn(0).getInt64();
    std::string text = utf8_text(s->getColumn(4), path, rowid, kNvtxTable, "text");
    if (s->getColumn(4).isNull() && !s->getColumn(5).isNull())
      if (auto it = strings.find(s->getColumn(5).getInt64()); it != strings.end())
        text = it->second;
    const NvtxOperatorText parsed = parse_nvtx_operator_text(text);
    TraceOperator op;
    op.name = parsed.name.empty() ? "(unnamed NVTX range)" : parsed.name;
    const int64_t start = time_ns(s->getColumn(1), path, rowid, kNvtxTable, "start");
    const int64_t end = time_ns(s->getColumn(2), path, rowid, kNvtxTable, "end");
    op.start_ns = static_cast<double>(start);
    op.duration_ns = duration_ns(start, end, path, rowid, kNvtxTable);
    op.thread = s->getColumn(3).getInt64();
    op.input_shapes = parsed.input_shapes;
    op.input_dtypes.assign(parsed.input_shapes.size(), std::string());
    op.has_shapes = parsed.has_shapes;
    op.line = rowid;
    events.operators.push_back(std::move(op));
  }
  if (unended)
    events.notes.push_back(fmt::format(
        "{} NVTX ranges never ended (the profile stopped inside them): left out", unended));
}

std::string gpu_name(SQLite::Database& db, ExportLayout& layout, const TraceEvents& events) {
  if (!layout.has(kGpuTable, "name")) return {};
  const bool by_id = layout.has(kGpuTable, "id") && !events.kernels.empty();
  TableRows s(db,
              fmt::format("SELECT name, {}, rowid FROM TARGET_INFO_GPU ORDER BY rowid",
                          layout.column_or_null(kGpuTable, "id")),
              events.file, kGpuTable);
  std::string first;
  while (s.next()) {
    const std::string name =
        utf8_text(s->getColumn(0), events.file, s->getColumn(2).getInt64(), kGpuTable, "name");
    if (first.empty()) first = name;
    if (by_id && !s->getColumn(1).isNull() &&
        s->getColumn(1).getInt64() == events.kernels.front().device)
      return name;
  }
  return first;
}

void read_kernels(SQLite::Database& db, ExportLayout& layout,
                  const std::unordered_map<int64_t, std::string>& strings, TraceEvents& events) {
  const std::string needs = "the kernels' start and end (ns) and a name";
  layout.require(kKernelTable, "start", needs);
  layout.require(kKernelTable, "end", needs);
  std::vector<std::string> names;
  for (const std::string& c : kKernelNameColumns)
    if (layout.has(kKernelTable, c)) names.push_back(c);
  if (names.empty()) layout.require(kKernelTable, kKernelNameColumns.front(), needs);
  const std::vector<std::string> optional{"deviceId",
                                          "streamId",
                                          "correlationId",
                                          "gridX",
                                          "gridY",
                                          "gridZ",
                                          "blockX",
                                          "blockY",
                                          "blockZ",
                                          "staticSharedMemory",
                                          "dynamicSharedMemory",
                                          "registersPerThread"};
  std::string select = "SELECT rowid, start, end";
  for (const std::string& c : optional) {
    select += ", " + layout.column_or_null(kKernelTable, c);
    if (!layout.has(kKernelTable, c))
      events.notes.push_back(fmt::format("no {}.{}: not recorded", kKernelTable, c));
  }
  for (const std::string& c : names) select += ", \"" + c + "\"";
  const std::string& path = events.file;
  TableRows rows(db, select + " FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start", path,
                 kKernelTable);
  SQLite::Statement& s = *rows;
  const int name_at = 3 + static_cast<int>(optional.size());
  size_t unnamed = 0;
  while (rows.next()) {
    auto value = [&](size_t i, int64_t absent) {
      const SQLite::Column c = s.getColumn(static_cast<int>(3 + i));
      return c.isNull() ? absent : c.getInt64();
    };
    TraceKernel k;
    k.line = s.getColumn(0).getInt64();
    const int64_t start = time_ns(s.getColumn(1), path, k.line, kKernelTable, "start");
    const int64_t end = time_ns(s.getColumn(2), path, k.line, kKernelTable, "end");
    k.start_ns = static_cast<double>(start);
    k.duration_ns = duration_ns(start, end, path, k.line, kKernelTable);
    k.device = static_cast<int>(value(0, 0));
    k.stream = value(1, -1);
    k.correlation_id = value(2, -1);
    k.grid = {value(3, 0), value(4, 0), value(5, 0)};
    k.block = {value(6, 0), value(7, 0), value(8, 0)};
    const int64_t static_shared = value(9, -1), dynamic_shared = value(10, -1);
    if (static_shared >= 0 || dynamic_shared >= 0) {
      const std::optional<int64_t> bytes =
          checked_add(std::max<int64_t>(static_shared, 0), std::max<int64_t>(dynamic_shared, 0));
      if (!bytes)
        throw InputError(row_at(path, k.line),
                         fmt::format("{} row {}: staticSharedMemory {} + dynamicSharedMemory {} "
                                     "passes 64 bits; expected the bytes of shared memory a "
                                     "kernel uses",
                                     kKernelTable, k.line, static_shared, dynamic_shared));
      k.shared_memory_bytes = *bytes;
    }
    k.registers_per_thread = static_cast<int>(value(11, -1));
    for (size_t n = 0; n < names.size() && k.name.empty(); ++n) {
      const SQLite::Column c = s.getColumn(name_at + static_cast<int>(n));
      if (c.isNull()) continue;
      if (auto it = strings.find(c.getInt64()); it != strings.end()) k.name = it->second;
    }
    if (k.name.empty()) {
      ++unnamed;
      k.name = "(unnamed kernel)";
    }
    events.kernels.push_back(std::move(k));
  }
  if (unnamed)
    events.notes.push_back(fmt::format(
        "{} kernels name no string of StringIds: imported as '(unnamed kernel)'", unnamed));
}

}  // namespace

TraceEvents read_nsys_export(const std::string& path) {
  refuse_non_sqlite(path);
  TraceEvents events;
  events.file = path;
  events.format = "nsys";
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    ExportLayout layout(db, path);
    layout.require_table(kKernelTable, "the CUDA kernels that ran (profile with --trace=cuda)");
    layout.require(kStringTable, "id", "the strings that kernels and ranges name");
    layout.require(kStringTable, "value", "the strings that kernels and ranges name");
    const std::unordered_map<int64_t, std::string> strings = string_ids(db, path);
    read_kernels(db, layout, strings, events);
    const std::string version = schema_version(db, layout, path);
    events.tool_version = "Nsight Systems export schema " + (version.empty() ? "unknown" : version);
    if (version.empty()) events.notes.push_back("no EXPORT_META_DATA schema version");
    events.device_name = gpu_name(db, layout, events);
    if (events.device_name.empty())
      events.notes.push_back("no TARGET_INFO_GPU name: the GPU is not named");
    read_nvtx_ranges(db, layout, strings, events);
    if (!events.operators.empty()) read_launches(db, layout, events);
  } catch (const SQLite::Exception& e) {
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot read the export: {}; expected an Nsight Systems SQLite "
                                 "export",
                                 e.what()));
  }
  return events;
}

}  // namespace ts
