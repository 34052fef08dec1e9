// The trace and store readers' refusals end to end (issue 40): each broken input exits 2 with one
// line naming the file and the line or row, nothing on stdout, and an import leaves the database
// byte for byte as it was, with nothing beside it. The array form of a Chrome trace imports.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "RefusedImport.hpp"
#include "RunTilescope.hpp"
#include "SqlFixture.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using json = nlohmann::json;

namespace {

const std::string kFixtures = "tests/fixtures/";

std::string built_export(const ts::test::TempDir& dir, const std::string& name) {
  const std::string db = dir / (name + ".sqlite");
  ts::test::build_sqlite_from_sql(std::string(TILESCOPE_FIXTURES) + "/trace/nsys/" + name + ".sql",
                                  db);
  return db;
}

const std::string kDurationExpected = "expected a finite duration in [0, 1e+15] ns";

}  // namespace

TEST_CASE("broken nsys exports exit 2 at their row or table, the database unchanged",
          "[cli][import][errors]") {
  ts::test::TempDir fixtures("nsys-broken");
  const std::string backwards = built_export(fixtures, "kernel-end-before-start");
  check_refused_unchanged(
      {"import", "nsys", backwards},
      backwards + ":2:1: CUPTI_ACTIVITY_KIND_KERNEL row 2: start 81000, end 60000",
      {kDurationExpected});
  // A view that never ends named like the kernel table: refused at once (the run's alarm would
  // end a reader that read it).
  const std::string view = built_export(fixtures, "kernel-table-is-a-view");
  check_refused_unchanged({"import", "nsys", view},
                          view + ": CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table");
  const std::string not_utf8 = built_export(fixtures, "string-not-utf8");
  check_refused_unchanged({"import", "nsys", not_utf8},
                          not_utf8 + ":1:1: StringIds row 1:", {"expected UTF-8 text"});
}

TEST_CASE("broken Chrome traces exit 2 at their line, the database unchanged",
          "[cli][import][errors]") {
  const std::string number = kFixtures + "trace/kineto/trace_events_number.json";
  check_refused_unchanged({"import", "kineto", number},
                          number + ":3:", {"`traceEvents` is a number"});
  const std::string huge = kFixtures + "trace/kineto/kernel_dur_1e306.json";
  check_refused_unchanged({"import", "kineto", huge}, huge + ":4:", {kDurationExpected});
  const std::string dims = kFixtures + "trace/kineto/operator_dims_2p62.json";
  ts::test::TempDir out("workload-out");
  check_refused_unchanged({"import", "kineto", dims, "--workload-out", out / "never.yaml"},
                          dims + ":5:", {"expected a size of at most 4000000000000000000"});
  CHECK(out.names().empty());
}

TEST_CASE("broken tables and runner records exit 2 at their line, the database unchanged",
          "[cli][import][errors]") {
  const std::string duration = kFixtures + "trace/msprof/op_summary_duration_1e306.csv";
  check_refused_unchanged({"import", "msprof", duration}, duration + ":3:", {kDurationExpected});
  const std::string shapes = kFixtures + "trace/msprof/op_summary_dims_2p62.csv";
  check_refused_unchanged({"import", "msprof", shapes},
                          shapes + ":3:", {"expected a size of at most 4000000000000000000"});
  const std::string csv = kFixtures + "csv/gemm-dim-2p62.csv";
  check_refused_unchanged({"import", "csv", csv, "--op", "gemm", "--scope", "device"},
                          csv + ":3:", {"expected a size of at most 4000000000000000000"});
  for (const auto& [file, says] :
       {std::pair{"passed-over-tolerance-results.jsonl", "expected passed to be max_error <= "},
        std::pair{"min-above-median-results.jsonl", "expected min <= median <= max"},
        std::pair{"negative-spread-results.jsonl", "'host_call_ns.spread' is -0.25"}}) {
    const std::string path = kFixtures + "cupti/" + file;
    check_refused_unchanged({"import", "runner", path}, path + ":3:", {says});
  }
}

TEST_CASE("an endless stream given as a trace or a table exits 2 naming it, unread",
          "[cli][import][errors]") {
  check_refused_unchanged({"import", "kineto", "/dev/zero"}, "/dev/zero: is not a regular file");
  check_refused_unchanged({"import", "nsys", "/dev/zero"}, "/dev/zero:1:1: not an SQLite file");
}

TEST_CASE("an endless stream given as a table or runner results is refused at its byte limit",
          "[cli][import][errors][slow]") {
  // Read up to 1 GiB and one byte past it: a second or two, a GiB of memory.
  check_refused_unchanged({"import", "runner", "/dev/zero"},
                          "/dev/zero: is longer than 1 GiB; expected the runner's results");
  check_refused_unchanged({"import", "msprof", "/dev/zero"},
                          "/dev/zero: is longer than 1 GiB; expected a CSV table");
}

TEST_CASE("a Chrome trace in its array form imports its kernels", "[cli][import]") {
  ts::test::TempDir dir("array-form");
  const std::string db = dir / "results.sqlite";
  const std::string workload = dir / "array.yaml";
  const RunResult r = run_tilescope({"import", "kineto", kFixtures + "trace/kineto/array_form.json",
                                     "--db", db, "--workload-out", workload});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const RunResult measured = run_tilescope({"db", "info", "--db", db, "--format", "json"});
  INFO(measured.out << measured.err);
  REQUIRE(measured.status == 0);
  const json info = json::parse(measured.out);
  CHECK(info["tables"]["measurements"] == 1);  // one GEMM, its two runs one measurement
  // the workload it wrote loads
  CHECK(run_tilescope({"validate", workload}).status == 0);
  // and the unclosed array is read to its last event, with a note
  const RunResult unclosed =
      run_tilescope({"import", "kineto", kFixtures + "trace/kineto/array_form_unclosed.json",
                     "--db", dir / "unclosed.sqlite"});
  INFO(unclosed.err);
  CHECK(unclosed.status == 0);
  CHECK(unclosed.err.find("no closing ']'") != std::string::npos);
}

TEST_CASE("report --sweep on a store with a row that does not read exits 2 naming the row",
          "[cli][report][errors]") {
  ts::test::TempDir dir("sweep-row");
  const std::string db = dir / "results.sqlite";
  // An empty store of the current schema, then the fixture's rows.
  REQUIRE(run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db", db, "--op",
                         "gemm", "--scope", "device"})
              .status == 0);
  {
    std::ifstream in(std::string(TILESCOPE_FIXTURES) + "/db/sweep-malformed-rows.sql");
    std::ostringstream sql;
    sql << in.rdbuf();
    sqlite3* handle = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
    REQUIRE(sqlite3_exec(handle, sql.str().c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(handle);
  }
  const RunResult r =
      run_tilescope({"report", "--db", db, "--arch", "tests/fixtures/arch/tiny.yaml", "--sweep", db,
                     "--out", dir / "report.html"});
  INFO(r.command << "\nexit " << r.status << "\nstderr: " << r.err);
  CHECK(r.status == 2);
  CHECK(r.err.rfind(db + ":2:1: sweep_points row 2: operators_json: not JSON text", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "report.html"));
}
