#include "trace/TraceFileKind.hpp"

#include <SQLiteCpp/SQLiteCpp.h>

#include <fstream>

#include "trace/Importer.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/MsprofImport.hpp"
#include "trace/TraceFileInput.hpp"

namespace ts {
namespace {

// A simulation's Chrome trace (`simulate --timeline`, `--out`) is JSON with traceEvents too, so
// a Kineto trace is known by what only Kineto writes, in its first 64 KiB of text (gzip read
// through): its schema and device keys, or its event and flow categories (docs/traces.md).
bool has_kineto_marker(const std::string& path) {
  try {
    const std::string head = trace_head(path, 65536);
    for (const char* marker : {"\"schemaVersion\"", "\"deviceProperties\"", "\"cpu_op\"",
                               "\"kernel\"", "\"cuda_runtime\"", "\"ac2g\"", "\"Operator\"",
                               "\"Kernel\"", "\"Runtime\"", "\"async_cpu_to_gpu\""})
      if (head.find(marker) != std::string::npos) return true;
  } catch (const std::exception&) {
    // a damaged gzip stream: not known as a trace here
  }
  return false;
}

}  // namespace

bool is_nsys_export(const std::string& path) {
  {
    std::ifstream in(path, std::ios::binary);
    char header[16] = {};
    if (!in.read(header, sizeof header) || std::string(header, 15) != "SQLite format 3")
      return false;
  }
  try {
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    SQLite::Statement tables(db,
                             "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
                             "('CUPTI_ACTIVITY_KIND_KERNEL', 'StringIds')");
    return tables.executeStep() && tables.getColumn(0).getInt() > 0;
  } catch (const std::exception&) {
    return false;  // locked or damaged: not known as an export; the store's open says why
  }
}

std::string trace_format_of(const std::string& path) {
  if (is_nsys_export(path)) return "nsys";
  std::string line;
  try {
    line = first_line_of(path);
  } catch (const std::exception&) {
    return "";
  }
  if (line.starts_with("SQLite format 3")) return "";  // a results database
  if (KinetoImporter().sniff(line) != Sniff::no && has_kineto_marker(path)) return "kineto";
  if (MsprofImporter().sniff(line) == Sniff::yes) return "msprof";
  return "";
}

}  // namespace ts
