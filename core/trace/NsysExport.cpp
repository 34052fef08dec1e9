#include "trace/NsysExport.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <unordered_map>

#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "trace/NsysNvtxText.hpp"

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

// The tables of an export and the columns of each, looked up once.
class ExportLayout {
 public:
  ExportLayout(SQLite::Database& db, std::string path) : db_(db), path_(std::move(path)) {
    SQLite::Statement s(db_, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    while (s.executeStep()) tables_.insert(s.getColumn(0).getString());
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

std::unordered_map<int64_t, std::string> string_ids(SQLite::Database& db) {
  std::unordered_map<int64_t, std::string> out;
  SQLite::Statement s(db, "SELECT id, value FROM StringIds");
  while (s.executeStep()) out.emplace(s.getColumn(0).getInt64(), s.getColumn(1).getString());
  return out;
}

// `EXPORT_SCHEMA_VERSION`, or its MAJOR / MINOR / MICRO rows joined; empty when none is there.
std::string schema_version(SQLite::Database& db, ExportLayout& layout) {
  if (!layout.has(kMetaTable, "name") || !layout.has(kMetaTable, "value")) return {};
  std::map<std::string, std::string> rows;
  SQLite::Statement s(db, "SELECT name, value FROM EXPORT_META_DATA");
  while (s.executeStep()) rows[s.getColumn(0).getString()] = s.getColumn(1).getString();
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
  for (const char* column : {"correlationId", "start", "globalTid"})
    if (!layout.has(kRuntimeTable, column)) {
      events.notes.push_back(
          fmt::format("no {}.{}: kernels are not tied to the NVTX ranges "
                      "around their launches",
                      kRuntimeTable, column));
      return;
    }
  std::unordered_map<int64_t, Launch> launch_of;
  SQLite::Statement s(db,
                      "SELECT correlationId, start, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME");
  while (s.executeStep())
    if (!s.getColumn(0).isNull() && !s.getColumn(2).isNull())
      launch_of.emplace(s.getColumn(0).getInt64(),
                        Launch{s.getColumn(1).getInt64(), s.getColumn(2).getInt64()});
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
  SQLite::Statement s(db, fmt::format("SELECT rowid, start, end, globalTid, {}, {} FROM "
                                      "NVTX_EVENTS WHERE eventType IN ({}, {}) ORDER BY start",
                                      layout.column_or_null(kNvtxTable, "text"),
                                      layout.column_or_null(kNvtxTable, "textId"),
                                      kNvtxPushPopRange, kNvtxStartEndRange));
  size_t unended = 0;
  while (s.executeStep()) {
    if (s.getColumn(2).isNull() || s.getColumn(3).isNull()) {
      ++unended;  // a push without its pop (the profile stopped inside it)
      continue;
    }
    std::string text = s.getColumn(4).getString();
    if (s.getColumn(4).isNull() && !s.getColumn(5).isNull())
      if (auto it = strings.find(s.getColumn(5).getInt64()); it != strings.end()) text = it->second;
    const NvtxOperatorText parsed = parse_nvtx_operator_text(text);
    TraceOperator op;
    op.name = parsed.name.empty() ? "(unnamed NVTX range)" : parsed.name;
    op.start_ns = static_cast<double>(s.getColumn(1).getInt64());
    op.duration_ns = static_cast<double>(s.getColumn(2).getInt64()) - op.start_ns;
    op.thread = s.getColumn(3).getInt64();
    op.input_shapes = parsed.input_shapes;
    op.input_dtypes.assign(parsed.input_shapes.size(), std::string());
    op.has_shapes = parsed.has_shapes;
    op.line = s.getColumn(0).getInt64();
    events.operators.push_back(std::move(op));
  }
  if (unended)
    events.notes.push_back(fmt::format(
        "{} NVTX ranges never ended (the profile stopped inside them): left out", unended));
}

std::string gpu_name(SQLite::Database& db, ExportLayout& layout, const TraceEvents& events) {
  if (!layout.has(kGpuTable, "name")) return {};
  const bool by_id = layout.has(kGpuTable, "id") && !events.kernels.empty();
  SQLite::Statement s(db, fmt::format("SELECT name, {} FROM TARGET_INFO_GPU ORDER BY rowid",
                                      layout.column_or_null(kGpuTable, "id")));
  std::string first;
  while (s.executeStep()) {
    if (first.empty()) first = s.getColumn(0).getString();
    if (by_id && !s.getColumn(1).isNull() &&
        s.getColumn(1).getInt64() == events.kernels.front().device)
      return s.getColumn(0).getString();
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
  SQLite::Statement s(db, select + " FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start");
  const int name_at = 3 + static_cast<int>(optional.size());
  size_t unnamed = 0;
  while (s.executeStep()) {
    auto value = [&](size_t i, int64_t absent) {
      const SQLite::Column c = s.getColumn(static_cast<int>(3 + i));
      return c.isNull() ? absent : c.getInt64();
    };
    TraceKernel k;
    k.line = s.getColumn(0).getInt64();
    k.start_ns = static_cast<double>(s.getColumn(1).getInt64());
    k.duration_ns = static_cast<double>(s.getColumn(2).getInt64()) - k.start_ns;
    k.device = static_cast<int>(value(0, 0));
    k.stream = value(1, -1);
    k.correlation_id = value(2, -1);
    k.grid = {value(3, 0), value(4, 0), value(5, 0)};
    k.block = {value(6, 0), value(7, 0), value(8, 0)};
    const int64_t static_shared = value(9, -1), dynamic_shared = value(10, -1);
    if (static_shared >= 0 || dynamic_shared >= 0)
      k.shared_memory_bytes =
          std::max<int64_t>(static_shared, 0) + std::max<int64_t>(dynamic_shared, 0);
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
    const std::unordered_map<int64_t, std::string> strings = string_ids(db);
    read_kernels(db, layout, strings, events);
    const std::string version = schema_version(db, layout);
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
