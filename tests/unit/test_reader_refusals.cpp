// The trace and store readers refuse what they cannot represent, each at its line or row, with
// the limits of core/trace/TraceInputLimits.hpp and the one size rule of
// core/workload/WorkloadLimits.hpp (issue 40): an nsys kernel ending before it starts or a kernel
// table that is a view that never ends, a Chrome trace whose traceEvents is not an array (and the
// array form read as a trace), a time past the limits (dur 1e306), a stream without end,
// contradictory runner records, operators no workload may hold, and a sweep store's row that
// does not read. Each broken input is a committed fixture.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SqlFixture.hpp"
#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/MsprofSummary.hpp"
#include "trace/NsysExport.hpp"
#include "trace/RunnerResults.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceInputLimits.hpp"
#include "workload/WorkloadLoader.hpp"
#include "workload/WorkloadWriter.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;
using ts::test::TempDir;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The export `name`.sql of tests/fixtures/trace/nsys builds, in `dir`.
std::string built_export(const TempDir& dir, const std::string& name) {
  const std::string db = dir / (name + ".sqlite");
  ts::test::build_sqlite_from_sql(fixture("trace/nsys/" + name + ".sql"), db);
  return db;
}

// What an import of `events` would store, up to the store (no database is opened); msprof's with
// the Ascend profile's kernel rules, as `import msprof` reads it.
PreparedTraceImport prepared(TraceEvents events) {
  ImportRequest request;
  request.file = events.file;
  if (events.format == "msprof")
    request.options["kernel-rules"] =
        std::string(TILESCOPE_SOURCE_DIR) + "/plugins/ascend/kernel-rules.yaml";
  return prepare_trace_import(events, request);
}

// Runs the statements of `sql_path` on the existing database `db_path`.
void apply_sql(const std::string& sql_path, const std::string& db_path) {
  std::ifstream in(sql_path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream sql;
  sql << in.rdbuf();
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  char* error = nullptr;
  const int status = sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  INFO(message);
  REQUIRE(status == SQLITE_OK);
}

const std::string kDurationExpected = "expected a finite duration in [0, 1e+15] ns";

}  // namespace

TEST_CASE("nsys: a kernel that ends before it starts is refused at its row", "[trace][nsys]") {
  TempDir dir("nsys-end-before-start");
  const std::string db = built_export(dir, "kernel-end-before-start");
  const InputError e = input_error_of([&] { read_nsys_export(db); });
  INFO(e.what());
  CHECK(e.where().file == db);
  CHECK(e.where().line == 2);  // the rowid
  CHECK(contains(e.message(), "CUPTI_ACTIVITY_KIND_KERNEL row 2: start 81000, end 60000"));
  CHECK(contains(e.message(), kDurationExpected));
}

TEST_CASE("nsys: a kernel table that is a view without end is refused at once, by name",
          "[trace][nsys]") {
  TempDir dir("nsys-view");
  const std::string db = built_export(dir, "kernel-table-is-a-view");
  const InputError e = input_error_of([&] { read_nsys_export(db); });
  INFO(e.what());
  CHECK(e.where().file == db);
  CHECK(contains(e.message(), "CUPTI_ACTIVITY_KIND_KERNEL is a view, not a table"));
}

TEST_CASE("nsys: a string that is not UTF-8 is refused at its StringIds row", "[trace][nsys]") {
  TempDir dir("nsys-utf8");
  const std::string db = built_export(dir, "string-not-utf8");
  const InputError e = input_error_of([&] { read_nsys_export(db); });
  INFO(e.what());
  CHECK(e.where().line == 1);
  CHECK(contains(e.message(), "StringIds row 1: `value`"));
  CHECK(contains(e.message(), "expected UTF-8 text"));
}

TEST_CASE("Chrome trace: the JSON Array Format is a trace, closed or not", "[trace][kineto]") {
  const TraceEvents closed = read_kineto_trace(fixture("trace/kineto/array_form.json"));
  REQUIRE(closed.kernels.size() == 2);
  CHECK(closed.kernels[1].duration_ns == 45500);
  for (const std::string& note : closed.notes) CHECK_FALSE(contains(note, "closing"));
  const PreparedTraceImport p = prepared(closed);
  REQUIRE(p.measurements.size() == 1);  // one GEMM, run twice
  CHECK(p.measurements[0].repetitions == 2);
  REQUIRE(p.workload);
  CHECK(p.workload->operators.size() == 1);

  // Without its closing ']' (a process that stopped while writing): read to the last event, and
  // said in a note.
  const TraceEvents unclosed = read_kineto_trace(fixture("trace/kineto/array_form_unclosed.json"));
  CHECK(unclosed.kernels.size() == 2);
  bool noted = false;
  for (const std::string& note : unclosed.notes) noted = noted || contains(note, "no closing ']'");
  CHECK(noted);
}

TEST_CASE("Chrome trace: traceEvents that is not an array is refused at the key",
          "[trace][kineto]") {
  const std::string file = fixture("trace/kineto/trace_events_number.json");
  const InputError e = input_error_of([&] { read_kineto_trace(file); });
  INFO(e.what());
  CHECK(e.where().file == file);
  CHECK(e.where().line == 3);
  CHECK(contains(e.message(), "`traceEvents` is a number"));
  CHECK(contains(e.message(), "expected `traceEvents` to be an array of events"));
}

TEST_CASE("Chrome trace: a duration past the limit (dur 1e306) is refused at its event",
          "[trace][kineto]") {
  const std::string file = fixture("trace/kineto/kernel_dur_1e306.json");
  const InputError e = input_error_of([&] { read_kineto_trace(file); });
  INFO(e.what());
  CHECK(e.where().line == 4);
  CHECK(contains(e.message(), "`kernel` event 'ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_tn'"));
  CHECK(contains(e.message(), kDurationExpected));
}

TEST_CASE("a trace or a stream that does not end is refused before it is held", "[trace][limits]") {
  // A Chrome trace is a regular file: a device is refused before a byte is read.
  const InputError device = input_error_of([] { read_kineto_trace("/dev/zero"); });
  CHECK(device.where().file == "/dev/zero");
  CHECK(contains(device.message(), "is not a regular file"));
  // A file read whole is read up to its limit and one byte past it (here a small one).
  const InputError endless = input_error_of([] {
    read_bounded_text("/dev/zero", uint64_t{1} << 20, "a CSV table", kTraceLimitsSection);
  });
  CHECK(endless.where().file == "/dev/zero");
  CHECK(contains(endless.message(), "is longer than 1 MiB; expected a CSV table of at most that"));
  TempDir dir("bounded");
  const std::string small = dir / "small.csv";
  std::ofstream(small) << "M,N,K,measured_us\n";
  CHECK(read_bounded_text(small, 18, "a CSV table", kTraceLimitsSection) == "M,N,K,measured_us\n");
  CHECK_THROWS_AS(read_bounded_text(small, 17, "a CSV table", kTraceLimitsSection), InputError);
}

TEST_CASE("msprof: a task duration past the limit is refused at its field", "[trace][msprof]") {
  const std::string file = fixture("trace/msprof/op_summary_duration_1e306.csv");
  const InputError e = input_error_of([&] { read_msprof_summary(file); });
  INFO(e.what());
  CHECK(e.where().line == 3);
  CHECK(e.where().column > 1);
  CHECK(contains(e.message(), kDurationExpected));
}

TEST_CASE("an operator no workload may hold is refused at its record, by the loader's rule",
          "[trace][workload]") {
  // A size of 2^62 (past the 4e18 every workload keeps), at the operator's event (line 5).
  const std::string dims = fixture("trace/kineto/operator_dims_2p62.json");
  const InputError big = input_error_of([&] { prepared(read_kineto_trace(dims)); });
  INFO(big.what());
  CHECK(big.where().file == dims);
  CHECK(big.where().line == 5);
  CHECK(contains(big.message(), "operator 'aten::mm'"));
  CHECK(contains(big.message(), "expected a size of at most 4000000000000000000"));
  // Sizes folded into the rows of a vector step that multiply past it.
  const std::string rows = fixture("trace/kineto/operator_rows_overflow.json");
  const InputError folded = input_error_of([&] { prepared(read_kineto_trace(rows)); });
  INFO(folded.what());
  CHECK(folded.where().line == 2);
  CHECK(contains(folded.message(), "makes a size of more than 64 bits hold"));
  CHECK(contains(folded.message(), "expected a size of at most 4000000000000000000"));
  // msprof's shapes and a CSV table's sizes, at their rows.
  const std::string msprof = fixture("trace/msprof/op_summary_dims_2p62.csv");
  const InputError task = input_error_of([&] { prepared(read_msprof_summary(msprof)); });
  CHECK(task.where().line == 3);
  CHECK(contains(task.message(), "expected a size of at most 4000000000000000000"));
  const std::string csv = fixture("csv/gemm-dim-2p62.csv");
  const InputError row =
      input_error_of([&] { read_shape_measurements(csv, "gemm", DataType::fp16); });
  CHECK(row.where().line == 3);
  CHECK(contains(row.message(), "expected a size of at most 4000000000000000000"));
}

TEST_CASE("the largest sizes an import accepts are the ones the workload loader accepts",
          "[trace][workload]") {
  // One operator of sizes (M, K) x (K, N), imported as a trace gives it: what the import would
  // write as --workload-out must load; one past the limit is refused by the import itself.
  auto events_with = [](int64_t m) {
    TraceEvents e;
    e.file = "limits.json";
    e.format = "kineto";
    TraceOperator op;
    op.name = "aten::mm";
    op.has_shapes = true;
    op.input_shapes = {{m, 1}, {1, 1}};
    op.input_dtypes = {"c10::Half", "c10::Half"};
    op.line = 7;
    e.operators.push_back(op);
    TraceKernel k;
    k.name = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_tn";
    k.duration_ns = 10;
    k.op = 0;
    e.kernels.push_back(k);
    return e;
  };
  const PreparedTraceImport at_limit = prepared(events_with(4'000'000'000'000'000'000));
  REQUIRE(at_limit.workload);
  CHECK_NOTHROW(parse_workload(workload_yaml(*at_limit.workload), "written.yaml"));
  const InputError past = input_error_of([&] { prepared(events_with(4'000'000'000'000'000'001)); });
  CHECK(past.where().file == "limits.json");
  CHECK(past.where().line == 7);
  // The loader refuses the same size, with the same words.
  const InputError loaded = input_error_of([] {
    parse_workload(
        "version: 1\nkind: workload\nname: x\noperators:\n"
        "  - {name: mm, type: gemm, M: 4000000000000000001, N: 1, K: 1}\n",
        "x.yaml");
  });
  CHECK(contains(loaded.message(), "expected a size of at most 4000000000000000000"));
  CHECK(contains(past.message(), "expected a size of at most 4000000000000000000"));
}

TEST_CASE("runner results: a record that contradicts itself is refused at its line",
          "[trace][runner]") {
  struct Case {
    const char* file;
    const char* says;
  };
  for (const Case& c : {Case{"passed-over-tolerance-results.jsonl",
                             "'check.passed' is true with max_error 5 and tolerance 0.01"},
                        Case{"min-above-median-results.jsonl", "expected min <= median <= max"},
                        Case{"negative-spread-results.jsonl", "'host_call_ns.spread' is -0.25"}}) {
    const std::string file = fixture(std::string("cupti/") + c.file);
    const InputError e = input_error_of([&] { read_runner_results(file); });
    INFO(e.what());
    CHECK(e.where().file == file);
    CHECK(e.where().line == 3);
    CHECK(contains(e.message(), c.says));
  }
  // The records these were made from read as they are.
  CHECK(read_runner_results(fixture("cupti/small-gpu-results.jsonl")).kernels.size() > 2);
}

TEST_CASE("sweep store: a row that does not read is refused naming the file and the row",
          "[measure][sweep]") {
  for (const auto& [name, says] :
       {std::pair{"sweep-malformed-rows.sql", "sweep_points row 2: operators_json: not JSON text"},
        std::pair{"sweep-negative-time-row.sql", "'device_s' is -0.001"}}) {
    TempDir dir("sweep-row");
    const std::string db = dir / "results.sqlite";
    { ResultStore store(db, ResultStore::Mode::read_write); }
    apply_sql(fixture(std::string("db/") + name), db);
    const ResultStore store(db, ResultStore::Mode::read_only);
    REQUIRE(store.sweeps().size() == 1);
    const auto [key, workload] = store.sweeps().front();
    CHECK(store.sweep_point_keys(key, workload).size() == 2);
    const InputError e = input_error_of([&] { store.sweep_points(key, workload); });
    INFO(e.what());
    CHECK(e.where().file == db);
    CHECK(e.where().line == 2);
    CHECK(contains(e.message(), says));
  }
}
