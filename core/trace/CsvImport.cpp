#include "trace/CsvImport.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "measure/ImportTransaction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "trace/CsvMeasurements.hpp"

namespace ts {

std::vector<ImporterOption> CsvImporter::options() const {
  return {{"op", "operator class of every row: " + join_names(csv_operator_types()), true, ""},
          {"scope",
           "what the latencies cover: device (the kernel alone) or host_call (a wall "
           "clock around the call)",
           true, ""},
          {"dtype", "data type of the operands", false, "fp16"},
          {"suite", "suite the operators belong to (default: the file's name without extension)",
           false, ""},
          {"implementation", "what ran the operators (a kernel or library name)", false, "csv"},
          {"device", "the device the table was measured on", false, "unknown"},
          {"columns",
           "the file's names for the columns tilescope reads, NAME=COLUMN,...: shape columns "
           "(M, N, K ...), op, name and the latency with its unit (measured_s, measured_ms, "
           "measured_us or measured_ns), e.g. M=m,N=n,K=k,measured_us=time",
           false, ""}};
}

namespace {

// The shape columns a table of the class may have: with kOpClassByRow, those of every class.
std::vector<std::string> shape_columns_of(const std::string& op_type) {
  if (op_type != kOpClassByRow) return shape_columns(op_type, "op");
  std::vector<std::string> all;
  for (const std::string& type : csv_operator_types())
    for (const std::string& column : shape_columns(type))
      if (std::find(all.begin(), all.end(), column) == all.end()) all.push_back(column);
  return all;
}

}  // namespace

Sniff CsvImporter::sniff(std::string_view first_line) const {
  // The header is what tells a table of measurements apart from any comma-separated text.
  CsvTable header;
  try {
    header = parse_csv(std::string(first_line), "header");
  } catch (const InputError&) {
    return Sniff::no;
  }
  if (header.column_index("measured_us") >= 0) return Sniff::yes;
  return header.header.size() > 1 && first_line.substr(0, 1) != "{" ? Sniff::maybe : Sniff::no;
}

ImportResult CsvImporter::import(const ImportRequest& request) const {
  auto option = [&](const std::string& name, const std::string& fallback = {}) {
    const auto it = request.options.find(name);
    return it == request.options.end() || it->second.empty() ? fallback : it->second;
  };
  const std::string op_type = option("op");
  const std::optional<TimingScope> scope = parse_timing_scope(option("scope"));
  if (!scope)
    throw InputError(SourceLocation{"scope", 0, 0},
                     "'" + option("scope") + "': expected device or host_call");
  const std::optional<DataType> dtype = parse_data_type(option("dtype", "fp16"));
  if (!dtype)
    throw InputError(SourceLocation{"dtype", 0, 0},
                     "'" + option("dtype") + "': expected a data type such as fp16, bf16, fp32");
  const std::string suite = option("suite", std::filesystem::path(request.file).stem().string());
  const std::string implementation = option("implementation", "csv");
  CsvColumnMap columns;
  if (const std::string text = option("columns"); !text.empty())
    columns = parse_csv_column_map(text, shape_columns_of(op_type), "columns");
  const std::vector<CsvShapeMeasurement> rows =
      read_shape_measurements(request.file, op_type, *dtype, columns);
  if (rows.empty())
    throw InputError(SourceLocation{request.file, 2, 1},
                     "no rows after the header: expected one measured shape per row");

  ImportResult out;
  import_into_store(request.db_path, [&](ResultStore& store) {
    RunStart start;
    start.collector = "import:csv";
    start.workload = suite;
    start.tool_version = request.tool_version;
    nlohmann::json settings = nlohmann::json{{"command", request.command_line},
                                             {"results_file", request.file},
                                             {"implementation", implementation},
                                             {"timing_scope", std::string(to_string(*scope))},
                                             {"op", op_type},
                                             {"dtype", std::string(to_string(*dtype))}};
    if (!option("columns").empty()) settings["columns"] = option("columns");
    start.settings_json = settings.dump();
    start.device.name = option("device", "unknown");
    start.device.kind = "imported";
    start.device.properties_json = "{}";
    ImportedRun run;
    run.id = store.begin_run(start);
    run.implementation = implementation;
    run.scope = *scope;
    for (const CsvShapeMeasurement& row : rows) {
      Measurement m;
      m.op = operator_key(row.op, suite);
      m.implementation = implementation;
      m.scope = *scope;
      m.repetitions = 1;
      m.min_ns = m.median_ns = row.measured_s * 1e9;
      m.checked = true;
      store.add_measurement(run.id, m);
      ++run.measurements;
    }
    store.finish_run(run.id, RunStatus::complete);
    out.runs.push_back(run);
  });
  return out;
}

}  // namespace ts
