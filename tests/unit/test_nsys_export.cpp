// Nsight Systems SQLite exports read into TraceEvents: kernels with their launch geometry, names
// through StringIds and launches, the GPU and the export's schema version, NVTX ranges as
// operators (with PyTorch's emit_nvtx shapes) that the shared step ties kernels to, in an older
// (2022, schema 2.x) and a newer (2024, schema 3.x) layout built from the committed .sql
// fixtures; and a kernel table without a needed column refused with the table and the column
// named. Expected figures are read off the fixtures' rows.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SqlFixture.hpp"
#include "TempDir.hpp"
#include "trace/KernelOperatorMatch.hpp"
#include "trace/NsysExport.hpp"
#include "trace/NsysImport.hpp"
#include "trace/NsysNvtxText.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;
using ts::test::TempDir;

namespace {

// The export that `name`.sql builds, in `dir`.
std::string built_export(const TempDir& dir, const std::string& name) {
  const std::string db = dir / (name + ".sqlite");
  ts::test::build_sqlite_from_sql(fixture("trace/nsys/" + name + ".sql"), db);
  return db;
}

bool has_note(const TraceEvents& e, const std::string& text) {
  for (const std::string& n : e.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("PyTorch's emit_nvtx range texts give the operator's name and shapes", "[trace][nsys]") {
  const NvtxOperatorText old_style =
      parse_nvtx_operator_text("aten::addmm, seq = 11, sizes = [[768], [128, 768], [768, 768]]");
  CHECK(old_style.name == "aten::addmm");
  CHECK(old_style.has_shapes);
  CHECK(old_style.input_shapes == std::vector<std::vector<int64_t>>{{768}, {128, 768}, {768, 768}});
  // newer releases add op_id and input_op_ids around sizes; a scalar argument has no shape
  const NvtxOperatorText new_style = parse_nvtx_operator_text(
      "aten::softmax, seq = 12, op_id = 13, sizes = [[1, 12, 128, 128], [], []], input_op_ids = "
      "[(12,0)]");
  CHECK(new_style.name == "aten::softmax");
  CHECK(new_style.input_shapes == std::vector<std::vector<int64_t>>{{1, 12, 128, 128}, {}, {}});
  // a list of tensors is one argument without a single shape
  const NvtxOperatorText list =
      parse_nvtx_operator_text("aten::cat, sizes = [[[2, 3], [2, 3]], []]");
  CHECK(list.input_shapes == std::vector<std::vector<int64_t>>{{}, {}});
  // a user's range is a name alone, commas and all; a broken sizes field leaves no shapes
  CHECK(parse_nvtx_operator_text("forward, layer 3").name == "forward, layer 3");
  CHECK_FALSE(parse_nvtx_operator_text("forward, layer 3").has_shapes);
  const NvtxOperatorText broken = parse_nvtx_operator_text("aten::mm, sizes = [[128, 76");
  CHECK(broken.name == "aten::mm");
  CHECK_FALSE(broken.has_shapes);
}

TEST_CASE("a 2022 Nsight Systems export reads into kernels and NVTX operators", "[trace][nsys]") {
  TempDir dir("nsys-2022");
  const TraceEvents e = read_nsys_export(built_export(dir, "export-2022"));
  CHECK(e.format == "nsys");
  CHECK(e.tool_version == "Nsight Systems export schema 2.9.1");  // MAJOR.MINOR.MICRO rows
  CHECK(e.device_name == "NVIDIA A100-SXM4-80GB");
  REQUIRE(e.kernels.size() == 3);
  const TraceKernel& gemm = e.kernels[0];
  CHECK(gemm.name == "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn");
  CHECK(gemm.start_ns == 30000);
  CHECK(gemm.duration_ns == 22000);  // end 52000 - start 30000
  CHECK(gemm.device == 0);
  CHECK(gemm.stream == 7);
  CHECK(gemm.correlation_id == 101);
  CHECK(gemm.grid == std::array<int64_t, 3>{6, 1, 1});
  CHECK(gemm.block == std::array<int64_t, 3>{128, 1, 1});
  CHECK(gemm.shared_memory_bytes == 49152);  // static 0 + dynamic 49152
  CHECK(gemm.registers_per_thread == 238);
  // the demangled name is preferred to the short and the mangled one
  CHECK(e.kernels[1].name.rfind("void (anonymous namespace)::softmax_warp_forward<", 0) == 0);
  CHECK(e.kernels[1].duration_ns == 8000);

  REQUIRE(e.operators.size() == 4);
  CHECK(e.operators[0].name == "encoder.layer.0");
  CHECK_FALSE(e.operators[0].has_shapes);
  CHECK(e.operators[2].name == "aten::addmm");
  CHECK(e.operators[2].input_shapes ==
        std::vector<std::vector<int64_t>>{{768}, {128, 768}, {768, 768}});
  CHECK(e.operators[2].duration_ns == 15000);
  CHECK(e.operators[2].thread == 71168954514);  // 4242 * 2^24 + 4242
  // each kernel's launch, from the runtime row with its correlation id
  CHECK(e.kernels[0].launch_ns == 5000);
  CHECK(e.kernels[0].launch_thread == 71168954514);
  CHECK(e.kernels[2].launch_ns == 95000);

  // the shared step's tie: addmm inside linear inside the layer, softmax directly inside the
  // layer; each kernel's operator is the innermost range around its launch (cudaLaunchKernel at
  // 5000 lies in layer, linear and addmm; at 26000 in layer and softmax; at 95000, after the
  // layer's range, in none)
  TraceEvents tied = e;
  tie_kernels_by_enclosing_span(tied);
  CHECK(tied.operators[1].parent == std::optional<size_t>(0));
  CHECK(tied.operators[2].parent == std::optional<size_t>(1));
  CHECK(tied.operators[3].parent == std::optional<size_t>(0));
  CHECK_FALSE(tied.operators[0].parent);
  CHECK(tied.kernels[0].op == std::optional<size_t>(2));
  CHECK(tied.kernels[1].op == std::optional<size_t>(3));
  CHECK_FALSE(tied.kernels[2].op);
}

TEST_CASE("a 2024 Nsight Systems export with added tables and columns reads the same way",
          "[trace][nsys]") {
  TempDir dir("nsys-2024");
  const TraceEvents e = read_nsys_export(built_export(dir, "export-2024"));
  CHECK(e.tool_version == "Nsight Systems export schema 3.11.1");
  CHECK(e.device_name == "NVIDIA H100 80GB HBM3");
  REQUIRE(e.kernels.size() == 3);
  CHECK(e.kernels[0].name.rfind("void cutlass::Kernel2<cutlass_80_tensorop_f16_s16816gemm", 0) ==
        0);
  CHECK(e.kernels[0].grid == std::array<int64_t, 3>{2, 2, 12});
  CHECK(e.kernels[0].shared_memory_bytes == 73728);
  CHECK(e.kernels[2].shared_memory_bytes == 16);  // static 16 + dynamic 0
  // texts through textId; the mark is not a range and the range without an end is left out
  REQUIRE(e.operators.size() == 3);
  CHECK(e.operators[0].name == "train_step 3");
  CHECK(e.operators[1].name == "aten::bmm");
  CHECK(e.operators[1].input_shapes ==
        std::vector<std::vector<int64_t>>{{12, 128, 64}, {12, 64, 128}});
  CHECK(has_note(e, "1 NVTX ranges never ended"));
  // the start/end range is an operator of the thread that opened it, around the push/pop ones:
  // the bmm kernel's launch (2000) lies in it and in aten::bmm, the innermost; the reduction's
  // (100000) in the step's range only
  TraceEvents tied = e;
  tie_kernels_by_enclosing_span(tied);
  CHECK(tied.operators[1].parent == std::optional<size_t>(0));
  CHECK(tied.kernels[0].op == std::optional<size_t>(1));
  CHECK(tied.kernels[1].op == std::optional<size_t>(2));
  CHECK(tied.kernels[2].op == std::optional<size_t>(0));
}

TEST_CASE("an export whose kernel table lacks a needed column is refused naming it",
          "[trace][nsys]") {
  TempDir dir("nsys-broken");
  const std::string db = built_export(dir, "kernel-without-end");
  const InputError e = input_error_of([&] { read_nsys_export(db); });
  CHECK(e.where().file == db);
  CHECK(e.message().rfind("table CUPTI_ACTIVITY_KIND_KERNEL has no column 'end'", 0) == 0);
  // a file that is not SQLite at all is named as such at its start
  const std::string csv = fixture("csv/gemm-small.csv");
  const InputError not_sqlite = input_error_of([&] { read_nsys_export(csv); });
  CHECK(not_sqlite.where().line == 1);
  CHECK(not_sqlite.message().rfind("not an SQLite file", 0) == 0);
}

TEST_CASE("the nsys importer reads SQLite files and nothing else", "[trace][nsys]") {
  TempDir dir("nsys-sniff");
  const NsysImporter nsys;
  CHECK(nsys.sniff(first_line_of(built_export(dir, "export-2022"))) == Sniff::yes);
  CHECK(nsys.sniff(first_line_of(fixture("csv/gemm-small.csv"))) == Sniff::no);
}
