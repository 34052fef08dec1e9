// NeuSight's tables of measured kernels, read as they are: the format recognised by its header,
// PyTorch's dimensions mapped onto tilescope's operators, the device, kernel and launch of every
// row carried, and every malformed field refused at its line and column.
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>

#include "InputErrorCapture.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/NeuSightTable.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

int64_t dim(const Operator& op, std::string_view name) {
  const int d = op.find_dim(name);
  REQUIRE(d >= 0);
  return op.dims[static_cast<size_t>(d)].size;
}

const std::string kGemmHeader =
    "op,device,B,M,N,K,latency_us,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z\n";
const std::string kVectorHeader =
    "op,device,B,H,latency_us,kernel,grid_x,grid_y,grid_z,block_x,block_y,block_z\n";

}  // namespace

TEST_CASE("NeuSight: the header says the format", "[neusight]") {
  CHECK(is_neusight_header(parse_csv(kGemmHeader, "g.csv").header));
  CHECK(is_neusight_header(parse_csv(kVectorHeader, "v.csv").header));
  // The launch columns are not needed to recognise it; op, device and latency_us are.
  CHECK(is_neusight_header({"op", "device", "B", "H", "latency_us"}));
  CHECK_FALSE(is_neusight_header({"op", "B", "H", "latency_us"}));
  CHECK_FALSE(is_neusight_header({"op", "device", "B", "M", "N", "latency_us"}));
  // A table of tilescope's own format keeps being read as it was.
  CHECK_FALSE(is_neusight_header({"op", "device", "B", "M", "N", "K", "measured_us"}));
  CHECK_FALSE(
      is_neusight_header({"op", "device", "B", "M", "N", "K", "latency_us", "measured_us"}));
  CHECK(neusight_operators() ==
        std::vector<std::string>{"bmm", "linear", "add", "mul", "gelu", "relu", "ln", "softmax"});
}

TEST_CASE("NeuSight GEMMs: bmm reduces N, linear has B x M rows", "[neusight]") {
  const std::string path = fixture("csv/neusight-gemm.csv");
  // Read as NeuSight's by name, by row, or with no class; fp32 whatever the dtype asked.
  for (const std::string op_type : {kOpClassNeuSight, kOpClassByRow, ""}) {
    INFO(op_type);
    const std::vector<CsvShapeMeasurement> rows =
        read_shape_measurements(path, op_type, DataType::fp16);
    REQUIRE(rows.size() == 5);

    // bmm 2,3,5,7: torch.bmm(A[2,3,5], X[2,5,7]), 5 reduced, a 2 x 3 x 7 output.
    const CsvShapeMeasurement& bmm = rows[0];
    CHECK(bmm.line == 2);
    CHECK(bmm.op_type == "batched_gemm");
    CHECK(bmm.op.type == OperatorType::batched_gemm);
    CHECK(bmm.op.name == "batched_gemm@2");
    CHECK(dim(bmm.op, "B") == 2);
    CHECK(dim(bmm.op, "M") == 3);
    CHECK(dim(bmm.op, "N") == 7);
    CHECK(dim(bmm.op, "K") == 5);  // the reduced dimension
    CHECK(bmm.op.total_flops() == 2.0 * 2 * 3 * 5 * 7);
    CHECK(bmm.op.primary_dtype() == DataType::fp32);
    CHECK(bmm.measured_s == Approx(30.5e-6));
    CHECK(bmm.device == "Tesla P4");
    CHECK(bmm.kernel == "maxwell_sgemm_128x64_nn");
    CHECK(bmm.launch.grid == std::array<int64_t, 3>{1, 1, 2});
    CHECK(bmm.launch.block == std::array<int64_t, 3>{128, 1, 1});
    CHECK(bmm.launch.text() == "grid 1x1x2 block 128x1x1");
    CHECK(bmm.launch.blocks() == 2);
    CHECK(bmm.launch.threads_per_block() == 128);
    CHECK(bmm.scope == TimingScope::host_call);

    // linear 2,3,5,7: nn.Linear(5, 7) on a 2 x 3 x 5 input: 6 rows, 5 reduced, 7 columns.
    const CsvShapeMeasurement& linear = rows[1];
    CHECK(linear.op_type == "linear");
    CHECK(linear.op.type == OperatorType::linear);
    CHECK(linear.op.shape_text() == "M=6 N=7 K=5");
    CHECK(linear.op.total_flops() == 2.0 * 6 * 7 * 5 + 6 * 7);
    CHECK(linear.op.primary_dtype() == DataType::fp32);
    CHECK(linear.kernel == "maxwell_sgemm_128x32_tn");
    CHECK(linear.launch.text() == "grid 1x1x1 block 256x1x1");

    CHECK(rows[3].device == "NVIDIA A100-PCIE-40GB");
    CHECK(rows[3].op.shape_text() == "M=58 N=141 K=13");
    CHECK(rows[3].launch.text() == "grid 5x1x1 block 256x1x1");
    CHECK(measurement_devices(rows) ==
          std::vector<std::string>{"Tesla P4", "Tesla V100-PCIE-32GB", "NVIDIA A100-PCIE-40GB"});
  }
}

TEST_CASE("NeuSight vector kernels: R = B, C = H", "[neusight]") {
  const std::vector<CsvShapeMeasurement> rows =
      read_shape_measurements(fixture("csv/neusight-vector.csv"), "", DataType::bf16);
  REQUIRE(rows.size() == 5);
  const std::vector<std::string> types{"add", "gelu", "layernorm", "softmax", "relu"};
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i].op_type == types[i]);
    CHECK(std::string(to_string(rows[i].op.type)) == types[i]);
    CHECK(rows[i].op.primary_dtype() == DataType::fp32);
    CHECK(rows[i].scope == TimingScope::host_call);
  }
  // add reads two B x H inputs; ln is a layernorm over H.
  CHECK(rows[0].op.shape_text() == "R=127 C=168");
  CHECK(rows[0].op.tensors.size() == make_vector_op("a", "add", 1, 1).tensors.size());
  CHECK(rows[0].kernel ==
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
        "at::detail::Array<char*, 3> >");
  CHECK(rows[2].op.shape_text() == "R=60 C=272");
  CHECK(rows[2].op.total_flops() ==
        make_vector_op("l", "layernorm", 60, 272, DataType::fp32).total_flops());
  CHECK(rows[2].launch.text() == "grid 60x1x1 block 32x4x1");
  CHECK(rows[3].kernel == "void");
  // The last row's launch fields are empty: no launch recorded.
  CHECK_FALSE(rows[4].launch.recorded());
  CHECK(rows[4].launch.text().empty());
  CHECK(measurement_devices(rows) == std::vector<std::string>{"Tesla T4", "NVIDIA A100-PCIE-40GB"});
}

TEST_CASE("NeuSight: broken rows are refused at their field", "[neusight]") {
  const std::string unknown = fixture("csv/neusight-unknown-op.csv");
  const InputError op =
      input_error_of([&] { read_shape_measurements(unknown, kOpClassByRow, DataType::fp32); });
  CHECK(format_location(op.where()) == unknown + ":3:1");
  CHECK_THAT(op.message(), Catch::Contains("'conv2d'") && Catch::Contains("bmm, linear") &&
                               Catch::Contains("softmax"));

  const std::string size = fixture("csv/neusight-bad-size.csv");
  const InputError n = input_error_of([&] { read_shape_measurements(size, "", DataType::fp32); });
  CHECK(format_location(n.where()) == size + ":3:22");
  CHECK_THAT(n.message(), Catch::Contains("'0'") && Catch::Contains("valid N") &&
                              Catch::Contains("positive integer"));

  const std::string latency = fixture("csv/neusight-bad-latency.csv");
  const InputError l =
      input_error_of([&] { read_shape_measurements(latency, kOpClassNeuSight, DataType::fp32); });
  CHECK(format_location(l.where()) == latency + ":3:23");
  CHECK_THAT(l.message(), Catch::Contains("'-24.1'") && Catch::Contains("latency_us") &&
                              Catch::Contains("microseconds"));

  auto error_of = [](const std::string& text) {
    return input_error_of(
        [&] { shape_measurements(parse_csv(text, "t.csv"), "", DataType::fp32); });
  };
  // A zero grid, an empty device, a GEMM in a table of vector kernels.
  CHECK(format_location(
            error_of(kVectorHeader + "add,Tesla T4,1,2,3,void,0,1,1,128,1,1\n").where()) ==
        "t.csv:2:25");
  const InputError device = error_of(kVectorHeader + "add,,1,2,3,void,1,1,1,128,1,1\n");
  CHECK(format_location(device.where()) == "t.csv:2:5");
  CHECK_THAT(device.message(), Catch::Contains("device"));
  const InputError gemm = error_of(kVectorHeader + "bmm,Tesla T4,1,2,3,void,1,1,1,128,1,1\n");
  CHECK(format_location(gemm.where()) == "t.csv:2:1");
  CHECK_THAT(gemm.message(), Catch::Contains("B, M, N, K"));
  // B x M of a linear past 64 bits, at M.
  const InputError rows =
      error_of(kGemmHeader + "linear,Tesla T4,4000000000,4000000000,2,3,5,k,1,1,1,1,1,1\n");
  CHECK(format_location(rows.where()) == "t.csv:2:28");
}

TEST_CASE("NeuSight: other tables are read as before, and a class is asked for", "[neusight]") {
  // Named as NeuSight's, a table of another format names what it lacks at line 1.
  const InputError lacks = input_error_of([] {
    shape_measurements(parse_csv("M,N,K,measured_us\n1,2,3,4\n", "p.csv"), kOpClassNeuSight,
                       DataType::fp32);
  });
  CHECK(format_location(lacks.where()) == "p.csv:1:1");
  CHECK_THAT(lacks.message(), Catch::Contains("no column 'op'") && Catch::Contains("latency_us"));
  // With no class, a table that does not say its format asks for one.
  const InputError none = input_error_of([] {
    shape_measurements(parse_csv("M,N,K,measured_us\n1,2,3,4\n", "p.csv"), "", DataType::fp32);
  });
  CHECK(format_location(none.where()) == "p.csv:1:1");
  CHECK_THAT(none.message(),
             Catch::Contains("class") && Catch::Contains("gemm") && Catch::Contains("by-row"));
  // With a class, a NeuSight table is not recognised: it is a table of that class's columns.
  const InputError gemm = input_error_of(
      [] { shape_measurements(parse_csv(kGemmHeader, "g.csv"), "gemm", DataType::fp32); });
  CHECK_THAT(gemm.message(), Catch::Contains("no column 'measured_us'"));
  // A by-row table of tilescope's format is untouched: its op column holds tilescope's classes.
  const auto rows =
      shape_measurements(parse_csv("op,device,M,N,K,measured_us\ngemm,x,4,8,16,10\n", "b.csv"),
                         kOpClassByRow, DataType::fp16);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].op.type == OperatorType::gemm);
  CHECK(rows[0].op.primary_dtype() == DataType::fp16);
  CHECK(rows[0].device.empty());
  CHECK_FALSE(rows[0].scope);
}

// Run on purpose: tilescope_tests "[!benchmark]" (or the name). Reads the study's two tables
// (../shared/validation/gpus/, 119,847 GEMMs and 50,750 vector kernels) and prints the time each
// takes: the file read, the CSV parse and one operator built per row.
TEST_CASE("NeuSight: reading the study's tables", "[neusight][!benchmark]") {
  for (const char* name : {"train_gemm.csv", "train_vector.csv"}) {
    const std::string path = fixture(std::string("../../../shared/validation/gpus/") + name);
    if (!std::ifstream(path)) {
      WARN("no " << path << ": nothing to time");
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    const CsvTable table = read_csv(path);
    const auto parsed = std::chrono::steady_clock::now();
    const std::vector<CsvShapeMeasurement> rows = shape_measurements(table, "", DataType::fp32);
    const auto built = std::chrono::steady_clock::now();
    const auto ms = [](auto from, auto to) {
      return std::chrono::duration<double, std::milli>(to - from).count();
    };
    CHECK(rows.size() == table.rows.size());
    CHECK(measurement_devices(rows).size() == 5);
    WARN(name << ": " << rows.size() << " rows in " << ms(start, built) << " ms (parse "
              << ms(start, parsed) << " ms, operators " << ms(parsed, built) << " ms)");
  }
}
