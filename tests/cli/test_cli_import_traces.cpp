// `tilescope import nsys`, `import msprof` and `import csv --columns` end to end: each committed
// fixture imports into a results database, `correlate` predicts what was stored, and each broken
// input (a kernel table without `end`, renamed msprof columns, a table without its latency)
// exits 2 with one line naming the file and what was expected, leaving the database's bytes as
// they were.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "RefusedImport.hpp"
#include "RunTilescope.hpp"
#include "SqlFixture.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using json = nlohmann::json;

namespace {

// An Nsight Systems export built from its committed SQL in `dir`.
std::string built_export(const ts::test::TempDir& dir, const std::string& name) {
  const std::string db = dir / (name + ".sqlite");
  ts::test::build_sqlite_from_sql(std::string(TILESCOPE_FIXTURES) + "/trace/nsys/" + name + ".sql",
                                  db);
  return db;
}

// `correlate --run 1` on a fresh graph: how many measurements it predicted and compared.
int64_t correlated_count(const std::string& db, const std::string& arch) {
  const RunResult r = run_tilescope(
      {"correlate", "--db", db, "--run", "1", "--arch", arch, "--format", "json"}, 300);
  INFO(r.err);
  REQUIRE(r.status == 0);
  return json::parse(r.out).at("overall").at("count").get<int64_t>();
}

}  // namespace

TEST_CASE("import nsys stores a 2022 and a 2024 export and correlate predicts them",
          "[cli][import][nsys]") {
  ts::test::TempDir dir("import-nsys");
  for (const std::string name : {"export-2022", "export-2024"}) {
    DYNAMIC_SECTION(name) {
      const std::string db = dir / (name + "-results.sqlite");
      const RunResult r = run_tilescope({"import", "nsys", built_export(dir, name), "--db", db});
      INFO(r.err);
      REQUIRE(r.status == 0);
      // 2022: the GEMM under aten::addmm and the softmax under aten::softmax (the fill after the
      // layer has no range: its name alone says elementwise); 2024: the CUTLASS kernel under
      // aten::bmm and the GELU under aten::gelu (the reduction lies only in the step's range,
      // which recorded no shapes). One measurement each, of a device-timed run.
      CHECK(r.out == "run 1 nsys kernels device: 2 measurements\n");
      const RunResult runs = run_tilescope({"db", "runs", "--db", db});
      CHECK(runs.out.find("import:nsys") != std::string::npos);
      CHECK(correlated_count(db, "samples/arch/nvidia-a100.yaml") == 2);
    }
  }
}

TEST_CASE("import msprof stores op_summary tables of both column namings",
          "[cli][import][msprof]") {
  ts::test::TempDir dir("import-msprof");
  const std::string cann8 = dir / "cann8.sqlite";
  const RunResult r8 = run_tilescope(
      {"import", "msprof", "tests/fixtures/trace/msprof/op_summary_cann8.csv", "--db", cann8});
  INFO(r8.err);
  REQUIRE(r8.status == 0);
  // MatMulV2, Add (a bias), BatchMatMulV2 and SoftmaxV2, read through the ascend profile's
  // kernel rules; the AI_CPU NonZero recorded no shapes
  CHECK(r8.out == "run 1 msprof kernels device: 4 measurements\n");
  CHECK(correlated_count(cann8, "samples/arch/ascend910b3.yaml") == 4);

  const std::string cann5 = dir / "cann5.sqlite";
  const RunResult r5 = run_tilescope(
      {"import", "msprof", "tests/fixtures/trace/msprof/op_summary_cann5.csv", "--db", cann5});
  INFO(r5.err);
  REQUIRE(r5.status == 0);
  CHECK(r5.out == "run 1 msprof kernels device: 3 measurements\n");  // MatMul, BiasAdd, SoftmaxV2
  CHECK(correlated_count(cann5, "samples/arch/ascend910b3.yaml") == 3);
}

TEST_CASE("import csv --columns reads a table under its own column names", "[cli][import]") {
  ts::test::TempDir dir("import-csv-columns");
  const std::string db = dir / "results.sqlite";
  const RunResult r = run_tilescope({"import", "csv", "tests/fixtures/trace/csv/gemm-timings.csv",
                                     "--db", db, "--op", "gemm", "--scope", "device", "--columns",
                                     "M=m,N=n,K=k,measured_ms=time_ms,name=kernel"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out == "run 1 csv device: 3 measurements\n");
  CHECK(correlated_count(db, "samples/arch/nvidia-a100.yaml") == 3);
}

TEST_CASE("broken traces and tables exit 2 naming what was expected, the database unchanged",
          "[cli][import][errors]") {
  ts::test::TempDir fixtures("import-broken");
  const std::string no_end = built_export(fixtures, "kernel-without-end");
  check_refused_unchanged({"import", "nsys", no_end},
                          no_end + ": table CUPTI_ACTIVITY_KIND_KERNEL has no column 'end'");
  check_refused_unchanged(
      {"import", "msprof", "tests/fixtures/trace/msprof/op_summary_renamed.csv"},
      "tests/fixtures/trace/msprof/op_summary_renamed.csv:1:1: no column 'Op Name' in the header");
  check_refused_unchanged({"import", "csv", "tests/fixtures/trace/csv/no-duration.csv", "--op",
                           "gemm", "--scope", "device", "--columns", "M=m,N=n,K=k"},
                          "tests/fixtures/trace/csv/no-duration.csv:1:1: no column 'measured_us' "
                          "in the header");
}
