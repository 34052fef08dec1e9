// The importers behind one interface: which files each one says it reads (sniffing), the
// registry's lookups, a CSV table stored as one run, and a failed import, truncated input or a
// failure inside the database's transaction, that leaves an existing database's rows as they were.
#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "trace/CsvImport.hpp"
#include "trace/Importer.hpp"
#include "trace/RunnerImport.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;
using ts::test::TempDir;

namespace {

ImporterRegistry builtin() {
  ImporterRegistry registry;
  register_builtin_importers(registry);
  return registry;
}

ImportRequest runner_request(const std::string& file, const std::string& db) {
  ImportRequest r;
  r.file = file;
  r.db_path = db;
  return r;
}

// Every table's row count and every run's status: what a failed import must not change.
std::string rows_of(const std::string& db) {
  ResultStore store(db, ResultStore::Mode::read_only);
  std::string out;
  for (const auto& [table, rows] : store.table_counts())
    out += table + "=" + std::to_string(rows) + " ";
  for (const RunInfo& r : store.runs())
    out += "run" + std::to_string(r.id) + ":" + std::string(to_string(r.status)) + " ";
  return out;
}

}  // namespace

TEST_CASE("each importer recognises its own files and not the other's", "[import]") {
  const RunnerImporter runner;
  const CsvImporter csv;
  const std::string runner_line = first_line_of(fixture("cupti/small-gpu-results.jsonl"));
  const std::string csv_line = first_line_of(fixture("csv/gemm-small.csv"));
  CHECK(csv_line == "M,N,K,measured_us");
  CHECK(runner.sniff(runner_line) == Sniff::yes);
  CHECK(csv.sniff(runner_line) == Sniff::no);
  CHECK(csv.sniff(csv_line) == Sniff::yes);
  CHECK(runner.sniff(csv_line) == Sniff::no);
  // a JSON object that is not a runner record, and a table without latencies: possible, not sure
  CHECK(runner.sniff(R"({"traceEvents": []})") == Sniff::maybe);
  CHECK(csv.sniff("M,N,K,latency") == Sniff::maybe);
  CHECK(csv.sniff("plain text") == Sniff::no);
  CHECK(csv.sniff("a,\"unclosed") == Sniff::no);

  const ImporterRegistry registry = builtin();
  const auto csv_readers = registry.sniff_file(fixture("csv/gemm-small.csv"));
  REQUIRE(csv_readers.size() == 1);
  CHECK(csv_readers.front()->name() == "csv");
  // a truncated results file still begins as runner results: the runner importer reads it (and
  // refuses it at the broken line)
  const auto truncated = registry.sniff_file(fixture("cupti/truncated-results.jsonl"));
  REQUIRE(!truncated.empty());
  CHECK(truncated.front()->name() == "runner");
}

TEST_CASE("the importer registry names what it has", "[import]") {
  ImporterRegistry registry = builtin();
  CHECK(registry.names() == std::vector<std::string>{"runner", "csv", "kineto"});
  register_builtin_importers(registry);  // once only
  CHECK(registry.names().size() == 3);
  CHECK_THROWS_AS(registry.add(std::make_unique<CsvImporter>()), std::invalid_argument);
  const InputError e = input_error_of([&] { registry.get("nsys", "import"); });
  CHECK(std::string(e.what()).find(
            "unknown importer 'nsys' (this build has: runner, csv, kineto)") != std::string::npos);
}

TEST_CASE("a CSV table is stored as one run of its rows", "[import]") {
  TempDir dir("import-csv");
  const std::string db = dir / "results.sqlite";
  ImportRequest r;
  r.file = fixture("csv/gemm-small.csv");
  r.db_path = db;
  r.options = {{"op", "gemm"}, {"scope", "device"}};
  const ImportResult result = CsvImporter().import(r);
  REQUIRE(result.runs.size() == 1);
  CHECK(result.runs[0].measurements == 24);  // the fixture's 24 shapes
  CHECK(result.runs[0].scope == TimingScope::device);
  ResultStore store(db, ResultStore::Mode::read_only);
  const RunInfo run = *store.run(result.runs[0].id);
  CHECK(run.start.collector == "import:csv");
  CHECK(run.start.workload == "gemm-small");  // the file's stem
  const std::vector<Measurement> ms = store.measurements(run.id);
  REQUIRE(ms.size() == 24);
  // the first row, `128,128,128,13.026`: 13.026 us
  const auto first = std::find_if(ms.begin(), ms.end(),
                                  [](const Measurement& m) { return m.op.name == "gemm@2"; });
  REQUIRE(first != ms.end());
  CHECK(first->op.dims == "M=128 N=128 K=128");
  CHECK(first->median_ns == Approx(13026.0));
  CHECK(first->implementation == "csv");

  ImportRequest no_scope = r;
  no_scope.options = {{"op", "gemm"}, {"scope", "wall"}};
  const InputError e = input_error_of([&] { CsvImporter().import(no_scope); });
  CHECK(std::string(e.what()).find("'wall': expected device or host_call") != std::string::npos);
}

TEST_CASE("a failed import leaves an existing database's rows unchanged", "[import][store]") {
  TempDir dir("import-fail");
  const std::string db = dir / "results.sqlite";
  const RunnerImporter runner;
  REQUIRE(runner.import(runner_request(fixture("cupti/small-gpu-results.jsonl"), db)).runs.size() ==
          8);
  const std::string before = rows_of(db);
  CHECK(before.find("measurements=32") != std::string::npos);

  SECTION("truncated runner results are refused at the broken line") {
    const std::string file = fixture("cupti/truncated-results.jsonl");
    const InputError e = input_error_of([&] { runner.import(runner_request(file, db)); });
    CHECK(e.where().file == file);
    CHECK(e.where().line == 5);
    CHECK(rows_of(db) == before);
  }
  SECTION("a failure inside the store's transaction undoes every write before it") {
    ResultStore store(db, ResultStore::Mode::read_write);
    CHECK_THROWS_AS(store.write_all([&] {
      RunStart start;
      start.collector = "import:test";
      const int64_t run = store.begin_run(start);
      Measurement m = store.measurements(1).front();
      store.add_measurement(run, m);
      store.finish_run(run, RunStatus::complete);
      throw std::runtime_error("the disk is full");
    }),
                    std::runtime_error);
    CHECK(rows_of(db) == before);
    // and the store still writes afterwards, each write on its own
    RunStart start;
    start.collector = "import:test";
    store.finish_run(store.begin_run(start), RunStatus::complete);
    CHECK(rows_of(db) != before);
  }
}
