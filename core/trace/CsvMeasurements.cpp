#include "trace/CsvMeasurements.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "common/Utf8.hpp"
#include "trace/NeuSightTable.hpp"
#include "trace/TraceInputLimits.hpp"
#include "workload/LlmOperators.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLimits.hpp"

namespace ts {
namespace {

constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// One field being read: its text, where it starts, and whether it was quoted (a quoted field
// keeps its spaces).
struct FieldReader {
  std::string text;
  int column = 1;
  bool quoted = false;
  bool after_quote = false;  // the closing quote was seen; only blanks may follow
};

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_blank(s[b])) ++b;
  while (e > b && is_blank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

}  // namespace

int CsvTable::column_index(const std::string& name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

CsvTable parse_csv(const std::string& text, const std::string& file_name) {
  CsvTable table;
  table.file = file_name;
  std::vector<CsvRow> records;
  CsvRow row;
  FieldReader field;
  bool in_quotes = false;
  int line = 1, column = 1;
  int quote_line = 0, quote_column = 0;
  row.line = 1;
  // Spreadsheets (Excel's "CSV UTF-8") start the file with a UTF-8 byte-order mark: it is not
  // part of the first column's name, and takes no column.
  const size_t start =
      std::string_view(text).starts_with(kUtf8ByteOrderMark) ? kUtf8ByteOrderMark.size() : 0;

  auto finish_field = [&] {
    // Names end up in JSON and SQLite, which need UTF-8: refuse here, at the field.
    if (const size_t bad = first_invalid_utf8(field.text); bad != std::string::npos)
      throw InputError(SourceLocation{file_name, field.quoted ? quote_line : line, field.column},
                       utf8_fault(field.text, bad) + "; expected UTF-8 text");
    row.fields.push_back(field.quoted ? std::move(field.text) : trimmed(field.text));
    // An unquoted field starts at its first non-blank character.
    int start = field.column;
    if (!field.quoted)
      for (char c : field.text) {
        if (!is_blank(c)) break;
        ++start;
      }
    row.columns.push_back(start);
    field = FieldReader{};
  };
  auto finish_row = [&] {
    finish_field();
    const bool blank = row.fields.size() == 1 && row.fields[0].empty();
    // The header is one record more than the data rows.
    if (!blank && records.size() > kCsvRowLimit)
      throw InputError(SourceLocation{file_name, row.line, 1},
                       fmt::format("more than {} rows; expected at most {} rows of "
                                   "measurements in one table (split the file)",
                                   kCsvRowLimit, kCsvRowLimit));
    if (!blank) records.push_back(std::move(row));
    row = CsvRow{};
    // Rows have the header's width: one allocation each for their fields and columns (a table
    // of 100,000 rows otherwise spends a good part of its reading growing them).
    if (!records.empty()) {
      row.fields.reserve(records.front().fields.size());
      row.columns.reserve(records.front().fields.size());
    }
  };

  for (size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field.text += '"';
          ++i;
          ++column;
        } else {
          in_quotes = false;
          field.after_quote = true;
        }
      } else {
        field.text += c;
      }
      if (c == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
      continue;
    }
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    if (c == '\n') {
      finish_row();
      ++line;
      column = 1;
      row.line = line;
      field.column = 1;
      continue;
    }
    if (c == ',') {
      finish_field();
      ++column;
      field.column = column;
      continue;
    }
    if (field.after_quote) {
      if (!is_blank(c))
        throw InputError(SourceLocation{file_name, line, column},
                         "text after a closing quote; expected `,` or the end of the line");
    } else if (c == '"' && trimmed(field.text).empty() && !field.quoted) {
      field.text.clear();
      field.quoted = true;
      field.column = column;
      in_quotes = true;
      quote_line = line;
      quote_column = column;
    } else {
      field.text += c;
    }
    ++column;
  }
  if (in_quotes)
    throw InputError(SourceLocation{file_name, quote_line, quote_column},
                     "a quote is not closed before the end of the file");
  finish_row();

  if (records.empty())
    throw InputError(SourceLocation{file_name, 1, 1},
                     "the file is empty; expected a header row naming the columns");
  table.header = records.front().fields;
  for (size_t i = 0; i < table.header.size(); ++i) {
    if (table.header[i].empty())
      throw InputError(SourceLocation{file_name, records.front().line, records.front().columns[i]},
                       fmt::format("column {} of the header has no name", i + 1));
    for (size_t j = 0; j < i; ++j)
      if (table.header[j] == table.header[i])
        throw InputError(
            SourceLocation{file_name, records.front().line, records.front().columns[i]},
            fmt::format("the header names column '{}' twice", table.header[i]));
  }
  for (size_t r = 1; r < records.size(); ++r) {
    CsvRow& rec = records[r];
    if (rec.fields.size() != table.header.size()) {
      const int col = rec.fields.size() > table.header.size()
                          ? rec.columns[table.header.size()]
                          : rec.columns.back() + static_cast<int>(rec.fields.back().size());
      throw InputError(
          SourceLocation{file_name, rec.line, col},
          fmt::format("{} fields in this row but {} columns in the header ({})", rec.fields.size(),
                      table.header.size(), join_names(table.header)));
    }
    table.rows.push_back(std::move(rec));
  }
  return table;
}

CsvTable read_csv(const std::string& path) {
  return parse_csv(read_bounded_text(path, kWholeFileByteLimit, "a CSV table", kTraceLimitsSection),
                   path);
}

// The LLM kernels with shapes of their own (rmsnorm and silu_mul R,C; rope T,H,D), so that a
// measured vLLM kernel is predicted as that operator, with the graph's template for its type.
std::vector<std::string> csv_operator_types() {
  std::vector<std::string> types{"gemm", "batched_gemm", "linear"};
  for (const std::string& step : vector_steps()) types.push_back(step);
  for (OperatorType t : {OperatorType::rmsnorm, OperatorType::silu_mul, OperatorType::rope})
    types.emplace_back(to_string(t));
  return types;
}

Operator build_operator(const std::string& op_type, const std::string& name,
                        const std::vector<int64_t>& sizes, DataType dtype) {
  auto size = [&](size_t i) { return i < sizes.size() ? sizes[i] : int64_t{1}; };
  if (op_type == "gemm") return make_gemm(name, size(0), size(1), size(2), dtype);
  if (op_type == "batched_gemm")
    return make_batched_gemm(name, size(0), size(1), size(2), size(3), dtype);
  if (op_type == "linear") return make_linear(name, size(0), size(1), size(2), dtype);
  if (is_vector_step(op_type)) return make_vector_op(name, op_type, size(0), size(1), dtype);
  if (op_type == "rmsnorm") return make_rmsnorm(name, size(0), size(1), dtype);
  if (op_type == "silu_mul") return make_silu_mul(name, size(0), size(1), dtype);
  if (op_type == "rope") return make_rope(name, size(0), size(1), size(2), dtype);
  throw InputError(SourceLocation{"operator class", 0, 0},
                   fmt::format("unknown operator class '{}'; expected one of {}", op_type,
                               join_names(csv_operator_types())));
}

std::vector<std::string> shape_columns(const std::string& op_type, const std::string& input_name) {
  const std::vector<std::string> types = csv_operator_types();
  if (std::find(types.begin(), types.end(), op_type) == types.end())
    throw InputError(
        SourceLocation{input_name, 0, 0},
        fmt::format("unknown operator class '{}'; expected one of {}", op_type, join_names(types)));
  // The builder names the dimensions; a probe operator says which, in its order.
  const Operator probe = build_operator(op_type, "probe", {}, DataType::fp16);
  std::vector<std::string> columns;
  for (const Dimension& d : probe.dims) columns.push_back(d.name);
  return columns;
}

namespace {

struct LatencyUnit {
  const char* key;
  const char* unit;  // for messages
  double seconds;
};
constexpr LatencyUnit kLatencyUnits[] = {{"measured_s", "seconds", 1},
                                         {"measured_ms", "milliseconds", 1e-3},
                                         {"measured_us", "microseconds", 1e-6},
                                         {"measured_ns", "nanoseconds", 1e-9}};

const LatencyUnit* latency_unit(const std::string& key) {
  for (const LatencyUnit& u : kLatencyUnits)
    if (key == u.key) return &u;
  return nullptr;
}

// Where a class's shape columns and its latency are in a table; checked once per class.
std::vector<int> measurement_columns(const CsvTable& table, const std::string& op_type,
                                     const CsvColumnMap& columns) {
  std::vector<std::string> expected = shape_columns(op_type);
  expected.push_back(columns.latency);
  std::vector<int> index;
  for (const std::string& name : expected) {
    const int i = table.column_index(columns.file_column(name));
    if (i < 0)
      throw InputError(SourceLocation{table.file, 1, 1},
                       fmt::format("no column '{}' in the header{}; a table of {} measurements "
                                   "needs the columns {} (found {})",
                                   columns.file_column(name), columns.given_as(name), op_type,
                                   join_names(expected), join_names(table.header)));
    index.push_back(i);
  }
  return index;
}

}  // namespace

std::string CsvColumnMap::file_column(const std::string& name) const {
  const auto it = file_columns.find(name);
  return it == file_columns.end() ? name : it->second;
}

std::string CsvColumnMap::given_as(const std::string& name) const {
  const auto it = file_columns.find(name);
  return it == file_columns.end() ? std::string()
                                  : fmt::format(" (--columns {}={})", name, it->second);
}

std::vector<std::string> csv_latency_keys() {
  std::vector<std::string> keys;
  for (const LatencyUnit& u : kLatencyUnits) keys.emplace_back(u.key);
  return keys;
}

CsvColumnMap parse_csv_column_map(const std::string& text, const std::vector<std::string>& known,
                                  const std::string& where) {
  std::vector<std::string> keys = known;
  keys.push_back("op");
  keys.push_back("name");
  for (const std::string& k : csv_latency_keys()) keys.push_back(k);
  CsvColumnMap map;
  bool latency_given = false;
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string pair = text.substr(from, comma - from);
    from = comma + 1;
    const size_t eq = pair.find('=');
    const std::string key = eq == std::string::npos ? pair : pair.substr(0, eq);
    const std::string column = eq == std::string::npos ? std::string() : pair.substr(eq + 1);
    if (eq == std::string::npos || key.empty() || column.empty())
      throw InputError(SourceLocation{where, 0, 0},
                       fmt::format("'{}': expected NAME=COLUMN pairs separated by commas, such "
                                   "as M=m,N=n,K=k,measured_us=time",
                                   pair));
    if (std::find(keys.begin(), keys.end(), key) == keys.end())
      throw InputError(SourceLocation{where, 0, 0},
                       fmt::format("'{}' is not a column tilescope reads; expected one of {}", key,
                                   join_names(keys)));
    if (map.file_columns.count(key))
      throw InputError(SourceLocation{where, 0, 0}, fmt::format("'{}' is given twice", key));
    if (const LatencyUnit* unit = latency_unit(key)) {
      if (latency_given)
        throw InputError(SourceLocation{where, 0, 0},
                         fmt::format("'{}' and '{}' both name the latency; expected one of {}",
                                     map.latency, key, join_names(csv_latency_keys())));
      latency_given = true;
      map.latency = key;
      map.seconds_per_unit = unit->seconds;
    }
    map.file_columns[key] = column;
  }
  return map;
}

namespace {

// Whether the table is read as a NeuSight table: named so, or recognised by its header where the
// caller names no class (empty) or each row names its own (by-row), and no column map renames
// the columns (a map describes a table of tilescope's format with other names).
bool read_as_neusight(const CsvTable& table, const std::string& op_type,
                      const CsvColumnMap& column_map) {
  if (op_type == kOpClassNeuSight) return true;
  return (op_type.empty() || op_type == kOpClassByRow) && column_map.file_columns.empty() &&
         is_neusight_header(table.header);
}

}  // namespace

std::vector<CsvShapeMeasurement> shape_measurements(const CsvTable& table,
                                                    const std::string& op_type, DataType dtype,
                                                    const CsvColumnMap& column_map) {
  if (read_as_neusight(table, op_type, column_map)) return neusight_measurements(table);
  if (op_type.empty())
    throw InputError(
        SourceLocation{table.file, 1, 1},
        fmt::format("no operator class given, and the header is not one that says "
                    "its own format (a NeuSight table: op, device, latency_us, and "
                    "B, M, N, K or B, H); expected the class of the rows (--op): one of {}, "
                    "or {} (found {})",
                    join_names(csv_operator_types()), kOpClassByRow, join_names(table.header)));
  const bool by_row = op_type == kOpClassByRow;
  const int op_column = by_row ? table.column_index(column_map.file_column("op")) : -1;
  if (by_row && op_column < 0)
    throw InputError(SourceLocation{table.file, 1, 1},
                     fmt::format("no column '{}' in the header{}; with --op {} each row names its "
                                 "operator class there (found {})",
                                 column_map.file_column("op"), column_map.given_as("op"),
                                 kOpClassByRow, join_names(table.header)));
  const LatencyUnit* unit = latency_unit(column_map.latency);
  if (!unit) throw std::invalid_argument("unknown latency key " + column_map.latency);
  // Per class met so far: where its shape columns and latency are, and the shape columns' names.
  struct ClassColumns {
    std::vector<int> index;
    std::vector<std::string> names;
  };
  std::map<std::string, ClassColumns> columns_of;
  auto columns = [&](const std::string& type) -> const ClassColumns& {
    auto it = columns_of.find(type);
    if (it == columns_of.end())
      it = columns_of
               .emplace(type, ClassColumns{measurement_columns(table, type, column_map),
                                           shape_columns(type)})
               .first;
    return it->second;
  };
  if (!by_row) columns(op_type);  // a missing column is named even in a table without rows
  const int name_column = table.column_index(column_map.file_column("name"));
  const std::vector<std::string> types = by_row ? csv_operator_types() : std::vector<std::string>{};

  std::vector<CsvShapeMeasurement> out;
  out.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    std::string type = op_type;
    if (by_row) {
      const size_t oc = static_cast<size_t>(op_column);
      type = row.fields[oc];
      if (std::find(types.begin(), types.end(), type) == types.end())
        throw InputError(SourceLocation{table.file, row.line, row.columns[oc]},
                         fmt::format("'{}' is not an operator class; expected one of {}", type,
                                     join_names(types)));
    }
    const ClassColumns& class_columns = columns(type);
    const std::vector<int>& index = class_columns.index;
    const std::vector<std::string>& names = class_columns.names;
    std::vector<int64_t> sizes;
    for (size_t c = 0; c < names.size(); ++c) {
      const std::string& text = row.fields[static_cast<size_t>(index[c])];
      int64_t value = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
        throw InputError(
            SourceLocation{table.file, row.line, row.columns[static_cast<size_t>(index[c])]},
            fmt::format("'{}' is not a valid {}; expected a positive integer", text, names[c]));
      sizes.push_back(value);
    }
    const size_t mc = static_cast<size_t>(index.back());
    const std::string& text = row.fields[mc];
    double measured = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), measured);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(measured) ||
        measured <= 0)
      throw InputError(SourceLocation{table.file, row.line, row.columns[mc]},
                       fmt::format("'{}' is not a valid {}; expected a positive number of {}", text,
                                   column_map.latency, unit->unit));
    std::string name = name_column >= 0 ? row.fields[static_cast<size_t>(name_column)] : "";
    if (name.empty()) name = fmt::format("{}@{}", type, row.line);
    const double seconds = measured * unit->seconds;
    if (const auto problem =
            duration_problem(seconds * 1e9, column_map.latency + " '" + text + "' ="))
      throw InputError(SourceLocation{table.file, row.line, row.columns[mc]}, *problem);
    CsvShapeMeasurement m;
    m.op = build_operator(type, name, sizes, dtype);
    // The sizes every workload's operator keeps (the workload loader's rule): the operator's spec
    // is stored, and read back as a workload entry.
    check_operator_sizes(
        m.op,
        SourceLocation{table.file, row.line,
                       names.empty() ? 1 : row.columns[static_cast<size_t>(index[0])]},
        "the row's " + type);
    m.op_type = type;
    m.measured_s = seconds;
    m.line = row.line;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<CsvShapeMeasurement> read_shape_measurements(const std::string& path,
                                                         const std::string& op_type, DataType dtype,
                                                         const CsvColumnMap& columns) {
  // The class is checked before the file is read, so a typo in --op is named as such.
  if (!op_type.empty() && op_type != kOpClassByRow && op_type != kOpClassNeuSight)
    shape_columns(op_type);
  return shape_measurements(read_csv(path), op_type, dtype, columns);
}

std::string KernelLaunch::text() const {
  if (!recorded()) return {};
  return fmt::format("grid {}x{}x{} block {}x{}x{}", grid[0], grid[1], grid[2], block[0], block[1],
                     block[2]);
}

std::vector<std::string> measurement_devices(const std::vector<CsvShapeMeasurement>& rows) {
  // A table names a handful of GPUs: a linear search over those seen is the cheapest set.
  std::vector<std::string> devices;
  for (const CsvShapeMeasurement& row : rows)
    if (!row.device.empty() &&
        std::find(devices.begin(), devices.end(), row.device) == devices.end())
      devices.push_back(row.device);
  return devices;
}

}  // namespace ts
