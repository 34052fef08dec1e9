#pragma once
// Measurements as a plain table, one shape per row: `M,N,K,measured_us` for `gemm`, or a table
// of measured kernels that says its own format in its header (NeuSight's, NeuSightTable.hpp).
// What `correlate --csv` and `fit --measurements FILE.csv` read. The reader is strict: a header
// row is required, column names are matched exactly, every row has as many fields as the header,
// and any malformed value is reported as `file:line:col` (exit 2), never skipped.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/DataType.hpp"
#include "measure/MeasurementRecord.hpp"
#include "workload/Operator.hpp"

namespace ts {

// A comma-separated table. Fields may be quoted ("a,b", with "" for a quote); unquoted fields
// are trimmed of spaces and tabs. Blank lines are skipped; CRLF line ends and a leading UTF-8
// byte-order mark are accepted.
struct CsvRow {
  int line = 0;  // 1-based line in the file
  std::vector<std::string> fields;
  std::vector<int> columns;  // 1-based character column where each field starts
};

struct CsvTable {
  std::string file;
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  int column_index(const std::string& name) const;  // -1 when absent
};

// The most data rows a table may have. Real tables of measurements hold thousands; a million
// rows already take seconds and about a GiB to read and correlate, and a file far past it is a
// mistake (a trace exported as a table) that would otherwise run for minutes and exhaust memory.
inline constexpr size_t kCsvRowLimit = 1'000'000;

// Throws InputError when the file cannot be read, has no header, a header names a column twice,
// a quote is not closed, a row's field count differs from the header's, or there are more than
// kCsvRowLimit data rows (at the first row past it).
CsvTable read_csv(const std::string& path);
CsvTable parse_csv(const std::string& text, const std::string& file_name);

// The operator classes a table can describe: the builders of workload/OperatorBuilders.hpp
// (gemm, batched_gemm, linear and the vector steps: softmax, gelu, layernorm, ...).
std::vector<std::string> csv_operator_types();
// The shape columns of an operator class, named after its dimensions: gemm and linear M,N,K;
// batched_gemm B,M,N,K; vector steps R,C. Throws InputError (file `input_name`, line 0) for an
// unknown class.
std::vector<std::string> shape_columns(const std::string& op_type,
                                       const std::string& input_name = "operator class");
// Builds one operator of the class; `sizes` in the order of shape_columns.
Operator build_operator(const std::string& op_type, const std::string& name,
                        const std::vector<int64_t>& sizes, DataType dtype);

// The operator class that says "each row names its own class in its `op` column": a table of
// measured kernels of several kinds (GEMMs and vector steps), each row filling the shape columns
// of its class and leaving the others empty.
inline constexpr const char* kOpClassByRow = "by-row";

// The `--op` that names a table of NeuSight's format (NeuSightTable.hpp): GEMMs
// `op,device,B,M,N,K,latency_us,kernel,grid_x,...,block_z` or vector kernels
// `op,device,B,H,latency_us,...`, each row naming its operator in NeuSight's words (bmm, linear,
// add, mul, gelu, relu, ln, softmax). Such a table is also recognised by its header with
// kOpClassByRow or with no class at all (an empty op_type).
inline constexpr const char* kOpClassNeuSight = "neusight";

// Where a table that names its columns otherwise keeps what tilescope reads
// (`import csv --columns M=m,N=n,K=k,measured_ms=time`): the file's column for each of
// tilescope's (a shape column, `op`, `name`, the latency), and the latency's unit, said by its
// key: measured_s, measured_ms, measured_us or measured_ns. Empty: the table's own names, with
// measured_us.
struct CsvColumnMap {
  std::map<std::string, std::string> file_columns;  // tilescope's name -> the file's
  std::string latency = "measured_us";              // the latency's key, which says its unit
  double seconds_per_unit = 1e-6;

  // The file's name for a column of tilescope's: the mapped one, or the name itself.
  std::string file_column(const std::string& name) const;
  // ` (--columns NAME=FILE)` when the column was mapped, for messages; empty otherwise.
  std::string given_as(const std::string& name) const;
};

// The latency keys of a column map, each with its unit.
std::vector<std::string> csv_latency_keys();

// Reads `NAME=COLUMN,...`. Every NAME must be one of `known` (the shape columns of the operator
// classes the table may hold), `op`, `name` or a latency key, at most once, and at most one
// latency key; an InputError at `where` (the option) otherwise.
CsvColumnMap parse_csv_column_map(const std::string& text, const std::vector<std::string>& known,
                                  const std::string& where);

// How a kernel was launched, as a profiler records it: blocks in the grid and threads in a block,
// x, y, z. Zero when the table gives none (as TraceKernel's).
struct KernelLaunch {
  std::array<int64_t, 3> grid{0, 0, 0};
  std::array<int64_t, 3> block{0, 0, 0};

  bool recorded() const { return grid[0] > 0; }
  int64_t blocks() const { return grid[0] * grid[1] * grid[2]; }
  int64_t threads_per_block() const { return block[0] * block[1] * block[2]; }
  // "grid 42x1x1 block 128x1x1"; empty when not recorded.
  std::string text() const;
  bool operator==(const KernelLaunch&) const = default;
};

struct CsvShapeMeasurement {
  Operator op;          // named `<type>@<line>`, or after the row's `name` column when there is one
  std::string op_type;  // its class: the table's, or the row's `op` (by-row; NeuSight: mapped)
  double measured_s = 0;
  int line = 0;
  // What a table of measured kernels says besides the shape (NeuSight's); empty otherwise.
  std::string device;   // the GPU as the table names it: "Tesla P4", "NVIDIA A100-PCIE-40GB"
  std::string kernel;   // the kernel the library ran: "volta_sgemm_128x64_nn"
  KernelLaunch launch;  // its grid and block
  // What the latency covers when the format says it (NeuSight: host_call, one call between two
  // CUDA events); unset when the reader's caller says it (`--timing-scope`).
  std::optional<TimingScope> scope;
};

// Reads the shape columns and `measured_us` (microseconds) of every row, or the columns `columns`
// names instead; other columns are ignored. With op_type kOpClassByRow, each row's class is its
// `op` field and only that class's shape columns are read (an unknown class is an InputError at the
// field). A missing column is an InputError at line 1 that names it and lists the expected columns;
// a size that is not a positive integer, or a latency that is not a positive number, is an
// InputError at its line and column.
//
// A NeuSight table (is_neusight_header: columns op, device and latency_us, with B,M,N,K or B,H,
// and no measured_us) is read as such with op_type kOpClassNeuSight, kOpClassByRow or empty, when
// no column map is given: its rows are fp32 whatever `dtype` says, host_call, and carry their
// device, kernel and launch (NeuSightTable.hpp). An empty op_type with any other table is an
// InputError at line 1 that asks for the class; kOpClassNeuSight with another table, one at line 1
// naming the columns it lacks.
std::vector<CsvShapeMeasurement> read_shape_measurements(const std::string& path,
                                                         const std::string& op_type, DataType dtype,
                                                         const CsvColumnMap& columns = {});
std::vector<CsvShapeMeasurement> shape_measurements(const CsvTable& table,
                                                    const std::string& op_type, DataType dtype,
                                                    const CsvColumnMap& columns = {});

// The devices the measurements name, each once, in the order they first appear (a table of
// several GPUs, to fit or report per GPU); empty when none names one.
std::vector<std::string> measurement_devices(const std::vector<CsvShapeMeasurement>& rows);

}  // namespace ts
