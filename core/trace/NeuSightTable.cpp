#include "trace/NeuSightTable.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "common/CheckedArithmetic.hpp"
#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "trace/TraceInputLimits.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLimits.hpp"

namespace ts {
namespace {

enum class RowShape { gemm, vector };

struct NeuSightOperator {
  std::string_view name;  // the table's
  OperatorType type;      // tilescope's
  RowShape shape;
};

// In the order of the study's operator list.
constexpr NeuSightOperator kOperators[] = {
    {"bmm", OperatorType::batched_gemm, RowShape::gemm},
    {"linear", OperatorType::linear, RowShape::gemm},
    {"add", OperatorType::add, RowShape::vector},
    {"mul", OperatorType::mul, RowShape::vector},
    {"gelu", OperatorType::gelu, RowShape::vector},
    {"relu", OperatorType::relu, RowShape::vector},
    {"ln", OperatorType::layernorm, RowShape::vector},
    {"softmax", OperatorType::softmax, RowShape::vector},
};

constexpr const char* kGemmColumns[] = {"B", "M", "N", "K"};
constexpr const char* kVectorColumns[] = {"B", "H"};
constexpr const char* kLaunchColumns[] = {"grid_x",  "grid_y",  "grid_z",
                                          "block_x", "block_y", "block_z"};

const NeuSightOperator* find_operator(std::string_view name) {
  for (const NeuSightOperator& op : kOperators)
    if (op.name == name) return &op;
  return nullptr;
}

bool has_columns(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  return std::all_of(names.begin(), names.end(), [&](const char* name) {
    return std::find(header.begin(), header.end(), name) != header.end();
  });
}

// Where each column is, -1 for absent ones: looked up once per table, not per row.
template <size_t N>
std::array<int, N> column_indices(const CsvTable& table, const char* const (&names)[N]) {
  std::array<int, N> index{};
  for (size_t i = 0; i < N; ++i) index[i] = table.column_index(names[i]);
  return index;
}

template <size_t N>
bool all_present(const std::array<int, N>& index) {
  return std::all_of(index.begin(), index.end(), [](int i) { return i >= 0; });
}

// A column the format requires in every table: an InputError at line 1 without it.
int required_column(const CsvTable& table, const char* name) {
  const int i = table.column_index(name);
  if (i < 0)
    throw InputError(
        SourceLocation{table.file, 1, 1},
        fmt::format("no column '{}' in the header; a NeuSight table needs the columns op, device, "
                    "latency_us, and B, M, N, K (GEMMs) or B, H (vector kernels) (found {})",
                    name, join_names(table.header)));
  return i;
}

// Reads one row; the column indices are the table's, checked once.
struct RowReader {
  const CsvTable& table;
  const CsvRow& row;

  const std::string& field(int column) const { return row.fields[static_cast<size_t>(column)]; }
  SourceLocation at(int column) const {
    return SourceLocation{table.file, row.line, row.columns[static_cast<size_t>(column)]};
  }

  int64_t positive_integer(int column, std::string_view name, int64_t largest) const {
    const std::string& text = field(column);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value <= 0)
      throw InputError(
          at(column),
          fmt::format("'{}' is not a valid {}; expected a positive integer", text, name));
    if (value > largest)
      throw InputError(at(column),
                       fmt::format("{} is {}; expected at most {}", name, value, largest));
    return value;
  }

  double latency_s(int column) const {
    const std::string& text = field(column);
    double us = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), us);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(us) || us <= 0)
      throw InputError(at(column),
                       fmt::format("'{}' is not a valid latency_us; expected a positive "
                                   "number of microseconds",
                                   text));
    return us * 1e-6;
  }
};

// Grids and blocks are CUDA's: at most 2^31 - 1 blocks along x, 65535 along y and z, 1024 threads.
constexpr int64_t kLargestLaunchExtent = 2'147'483'647;

}  // namespace

bool is_neusight_header(const std::vector<std::string>& header) {
  return has_columns(header, {"op", "device", "latency_us"}) &&
         !has_columns(header, {"measured_us"}) &&
         (has_columns(header, {"B", "M", "N", "K"}) || has_columns(header, {"B", "H"}));
}

std::vector<std::string> neusight_operators() {
  std::vector<std::string> names;
  for (const NeuSightOperator& op : kOperators) names.emplace_back(op.name);
  return names;
}

std::vector<CsvShapeMeasurement> neusight_measurements(const CsvTable& table) {
  const int op_column = required_column(table, "op");
  const int device_column = required_column(table, "device");
  const int latency_column = required_column(table, "latency_us");
  const std::array<int, 4> gemm = column_indices(table, kGemmColumns);
  const std::array<int, 2> vector = column_indices(table, kVectorColumns);
  if (!all_present(gemm) && !all_present(vector))
    throw InputError(SourceLocation{table.file, 1, 1},
                     fmt::format("no shape columns in the header; a NeuSight table needs B, M, N, "
                                 "K (GEMMs) or B, H (vector kernels) (found {})",
                                 join_names(table.header)));
  const int kernel_column = table.column_index("kernel");
  const std::array<int, 6> launch = column_indices(table, kLaunchColumns);
  const bool has_launch = all_present(launch);
  if (!has_launch && std::any_of(launch.begin(), launch.end(), [](int i) { return i >= 0; }))
    throw InputError(SourceLocation{table.file, 1, 1},
                     fmt::format("the header names some of the launch columns but not all; "
                                 "expected all of {} or none (found {})",
                                 join_names(std::vector<std::string>(std::begin(kLaunchColumns),
                                                                     std::end(kLaunchColumns))),
                                 join_names(table.header)));

  std::vector<CsvShapeMeasurement> out;
  out.reserve(table.rows.size());
  for (const CsvRow& row : table.rows) {
    const RowReader r{table, row};
    const std::string& op_name = r.field(op_column);
    const NeuSightOperator* op = find_operator(op_name);
    if (!op)
      throw InputError(
          r.at(op_column),
          fmt::format("'{}' is not an operator of a NeuSight table; expected one of {}", op_name,
                      join_names(neusight_operators())));
    const bool is_gemm_row = op->shape == RowShape::gemm;
    if (is_gemm_row ? !all_present(gemm) : !all_present(vector))
      throw InputError(
          r.at(op_column),
          fmt::format("a '{}' row needs the columns {}, which the header lacks (found {})", op_name,
                      is_gemm_row ? "B, M, N, K" : "B, H", join_names(table.header)));
    CsvShapeMeasurement m;
    m.op_type = std::string(to_string(op->type));
    m.line = row.line;
    std::string name = fmt::format("{}@{}", m.op_type, row.line);
    if (is_gemm_row) {
      int64_t size[4];
      for (size_t i = 0; i < 4; ++i)
        size[i] = r.positive_integer(gemm[i], kGemmColumns[i], kLargestDimensionSize);
      const auto [b, mm, n, k] = size;
      if (op->type == OperatorType::batched_gemm) {
        // torch.bmm(A[B,M,N], X[B,N,K]) reduces N: tilescope's K, and its N is the table's K.
        m.op = make_batched_gemm(std::move(name), b, mm, k, n, DataType::fp32);
      } else {
        // nn.Linear(N, K) on B x M x N: B*M rows, N reduced, K output columns. The places of B
        // and M are spelled out only for the message of a product too large.
        std::optional<int64_t> rows = checked_mul(b, mm);
        if (!rows || *rows > kLargestDimensionSize)
          rows = checked_dimension_size({CountAt{b, r.at(gemm[0])}, CountAt{mm, r.at(gemm[1])}},
                                        "the rows B x M of a linear");
        m.op = make_linear(std::move(name), *rows, k, n, DataType::fp32);
      }
    } else {
      const int64_t rows = r.positive_integer(vector[0], "B", kLargestDimensionSize);
      const int64_t cols = r.positive_integer(vector[1], "H", kLargestDimensionSize);
      m.op = make_vector_op(std::move(name), to_string(op->type), rows, cols, DataType::fp32);
    }
    // The sizes every workload's operator keeps (workload/WorkloadLimits.hpp): a tensor's bytes
    // within 64 bits besides each size's bound.
    check_operator_sizes(m.op, r.at(is_gemm_row ? gemm[0] : vector[0]), "the row's " + m.op_type);
    m.measured_s = r.latency_s(latency_column);
    if (const auto problem = duration_problem(m.measured_s * 1e9, "latency_us * 1000 ="))
      throw InputError(r.at(latency_column), *problem);
    m.device = r.field(device_column);
    if (m.device.empty())
      throw InputError(r.at(device_column),
                       "an empty device; expected the GPU the row was measured on, as "
                       "\"Tesla P4\"");
    if (kernel_column >= 0) m.kernel = r.field(kernel_column);
    if (has_launch &&
        !std::all_of(launch.begin(), launch.end(), [&](int c) { return r.field(c).empty(); })) {
      for (size_t i = 0; i < 6; ++i)
        (i < 3 ? m.launch.grid[i] : m.launch.block[i - 3]) =
            r.positive_integer(launch[i], kLaunchColumns[i], kLargestLaunchExtent);
    }
    m.scope = TimingScope::host_call;
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ts
