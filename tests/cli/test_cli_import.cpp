// `tilescope import NAME`: importers offered by name with their own options (a CSV table here),
// and a file given to the wrong importer named as the kind it is, with nothing written.
#include <catch2/catch.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

TEST_CASE("import csv stores a table of latencies as one run", "[cli][import]") {
  ts::test::TempDir dir("import-csv");
  const std::string db = dir / "results.sqlite";
  const RunResult r = run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db",
                                     db, "--op", "gemm", "--scope", "device"});
  REQUIRE(r.status == 0);
  CHECK(r.out == "run 1 csv device: 24 measurements\n");
  CHECK(r.err.find("imported 1 runs and 0 predictions into") != std::string::npos);
  const RunResult listed = run_tilescope({"db", "runs", "--db", db});
  CHECK(listed.status == 0);
  CHECK(listed.out.find("import:csv") != std::string::npos);
}

TEST_CASE("a file given to the wrong importer is named as what it is", "[cli][import]") {
  ts::test::TempDir dir("import-kind");
  const std::string db = dir / "results.sqlite";
  const RunResult r =
      run_tilescope({"import", "runner", "tests/fixtures/csv/gemm-small.csv", "--db", db});
  CHECK(r.status == 2);
  CHECK(r.err.rfind("tests/fixtures/csv/gemm-small.csv:1:1: not runner input", 0) == 0);
  CHECK(r.err.find("tilescope import csv") != std::string::npos);
  CHECK(dir.names().empty());

  // a table needs its timing scope: correlate compares like with like
  const RunResult no_scope = run_tilescope(
      {"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db", db, "--op", "gemm"});
  CHECK(no_scope.status == 2);
  CHECK(no_scope.err.find("--scope") != std::string::npos);
  CHECK(dir.names().empty());
}
