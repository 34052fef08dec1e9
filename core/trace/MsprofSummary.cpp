#include "trace/MsprofSummary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/TraceInputLimits.hpp"

namespace ts {
namespace {

// The order of msprof_columns(), for lookups.
enum Column {
  kOpName,
  kOpType,
  kStart,
  kDuration,
  kInputShapes,
  kInputTypes,
  kStream,
  kDevice,
  kColumnCount
};

// What msprof writes where a task has no shapes (AI_CPU and communication tasks).
bool no_value(const std::string& text) { return text.empty() || text == "N/A"; }

std::vector<int> column_positions(const CsvTable& table) {
  std::vector<int> at(kColumnCount, -1);
  for (size_t c = 0; c < kColumnCount; ++c) {
    const MsprofColumn& column = msprof_columns()[c];
    for (const std::string& name : column.names)
      if (at[c] < 0) at[c] = table.column_index(name);
    if (at[c] < 0 && column.needed)
      throw InputError(
          SourceLocation{table.file, 1, 1},
          fmt::format("no column {} in the header; an msprof op_summary names it {} "
                      "(found {})",
                      column.what, join_names(column.names), join_names(table.header)));
  }
  return at;
}

// A time column in ns: a number of microseconds, and within the limits every trace's times keep
// (trace/TraceInputLimits.hpp: a duration finite in [0, 1e15] ns, a start within 4e18 ns).
double nanoseconds(const CsvTable& table, const CsvRow& row, int column, const char* what,
                   bool duration) {
  const size_t c = static_cast<size_t>(column);
  const std::string& text = row.fields[c];
  const SourceLocation where{table.file, row.line, row.columns[c]};
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
    throw InputError(where, fmt::format("'{}' is not a valid {}; expected a number of microseconds",
                                        text, what));
  const double ns = value * 1e3;
  const std::string named = fmt::format("{} '{}' us =", what, text);
  if (const auto problem = duration ? duration_problem(ns, named) : timestamp_problem(ns, named))
    throw InputError(where, *problem);
  return ns;
}

// `1,128,768;768,768`: one shape per argument, `;` between them; an empty one is a scalar.
std::vector<std::vector<int64_t>> shapes(const CsvTable& table, const CsvRow& row, int column) {
  const size_t c = static_cast<size_t>(column);
  const std::string& text = row.fields[c];
  std::vector<std::vector<int64_t>> out(1);
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  while (p < end) {
    if (*p == ';') {
      out.emplace_back();
      ++p;
      continue;
    }
    if (*p == ',' || *p == ' ') {
      ++p;
      continue;
    }
    int64_t size = 0;
    const auto [next, ec] = std::from_chars(p, end, size);
    if (ec != std::errc() || size < 0)
      throw InputError(
          SourceLocation{table.file, row.line, row.columns[c] + static_cast<int>(p - text.data())},
          fmt::format("'{}' is not a list of shapes; expected sizes such as 1,128,768;768,768",
                      text));
    out.back().push_back(size);
    p = next;
  }
  return out;
}

// msprof writes GE's data type names (FLOAT16, DT_BF16); the shared step reads tilescope's.
// One it does not know is kept as written, and its operator is reported as without a dtype.
std::string tilescope_data_type(std::string name) {
  if (name.rfind("DT_", 0) == 0) name.erase(0, 3);
  static const std::pair<const char*, const char*> kNames[] = {
      {"FLOAT16", "fp16"}, {"BF16", "bf16"}, {"BFLOAT16", "bf16"}, {"FLOAT", "fp32"},
      {"FLOAT32", "fp32"}, {"INT8", "int8"}, {"INT32", "int32"}};
  for (const auto& [ge, ours] : kNames)
    if (name == ge) return ours;
  return name;
}

std::vector<std::string> data_types(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t semi = text.find(';');; semi = text.find(';', from)) {
    out.push_back(tilescope_data_type(
        text.substr(from, semi == std::string::npos ? std::string::npos : semi - from)));
    if (semi == std::string::npos) return out;
    from = semi + 1;
  }
}

}  // namespace

const std::vector<MsprofColumn>& msprof_columns() {
  // CANN 6.3 onward write the units into the time columns' names and `Device_id` first; CANN
  // 5.x and 6.0 wrote `Task Start Time` and no device column; some releases spell `Op Type`.
  static const std::vector<MsprofColumn> columns{
      {"'Op Name'", {"Op Name", "OP Name"}, true},
      {"'OP Type'", {"OP Type", "Op Type"}, true},
      {"'Task Start Time(us)'", {"Task Start Time(us)", "Task Start Time"}, true},
      {"'Task Duration(us)'", {"Task Duration(us)", "Task Duration"}, true},
      {"'Input Shapes'", {"Input Shapes"}, false},
      {"'Input Data Types'", {"Input Data Types"}, false},
      {"'Stream ID'", {"Stream ID"}, false},
      {"'Device_id'", {"Device_id", "Device ID"}, false}};
  return columns;
}

bool is_msprof_header(const std::vector<std::string>& header) {
  auto has_any = [&](Column c) {
    for (const std::string& name : msprof_columns()[c].names)
      if (std::find(header.begin(), header.end(), name) != header.end()) return true;
    return false;
  };
  return has_any(kOpName) && has_any(kDuration);
}

bool names_msprof_columns(const std::vector<std::string>& header) {
  for (const MsprofColumn& column : msprof_columns())
    for (const std::string& name : column.names)
      if (std::find(header.begin(), header.end(), name) != header.end()) return true;
  return false;
}

TraceEvents read_msprof_summary(const std::string& path) {
  const CsvTable table = read_csv(path);
  const std::vector<int> at = column_positions(table);
  TraceEvents events;
  events.file = path;
  events.format = "msprof";
  events.tool_version = table.column_index("Task Start Time(us)") >= 0
                            ? "msprof op_summary (CANN 6.3 or later)"
                            : "msprof op_summary (before CANN 6.3)";
  for (size_t c = 0; c < kColumnCount; ++c)
    if (at[c] < 0)
      events.notes.push_back(fmt::format("no column {}: not recorded", msprof_columns()[c].what));
  size_t without_shapes = 0;
  for (const CsvRow& row : table.rows) {
    auto field = [&](Column c) {
      return at[c] < 0 ? std::string() : row.fields[static_cast<size_t>(at[c])];
    };
    TraceOperator op;
    op.name = field(kOpType);
    op.start_ns = nanoseconds(table, row, at[kStart], "task start time", false);
    op.duration_ns = nanoseconds(table, row, at[kDuration], "task duration", true);
    op.line = row.line;
    if (at[kInputShapes] >= 0 && !no_value(field(kInputShapes))) {
      op.input_shapes = shapes(table, row, at[kInputShapes]);
      op.has_shapes = true;
      std::vector<std::string> dtypes = no_value(field(kInputTypes))
                                            ? std::vector<std::string>{}
                                            : data_types(field(kInputTypes));
      dtypes.resize(op.input_shapes.size());
      op.input_dtypes = std::move(dtypes);
    } else {
      ++without_shapes;
    }
    TraceKernel kernel;
    kernel.name = field(kOpName);
    kernel.start_ns = op.start_ns;
    kernel.duration_ns = op.duration_ns;
    kernel.line = row.line;
    int64_t number = 0;
    const std::string stream = field(kStream), device = field(kDevice);
    if (std::from_chars(stream.data(), stream.data() + stream.size(), number).ec == std::errc())
      kernel.stream = number;
    if (std::from_chars(device.data(), device.data() + device.size(), number).ec == std::errc())
      kernel.device = static_cast<int>(number);
    kernel.op = events.operators.size();
    events.operators.push_back(std::move(op));
    events.kernels.push_back(std::move(kernel));
  }
  if (without_shapes && at[kInputShapes] >= 0)
    events.notes.push_back(fmt::format("{} tasks record no input shapes (N/A)", without_shapes));
  return events;
}

}  // namespace ts
