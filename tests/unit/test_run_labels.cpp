// Run labels (issue 22): the runs of one store named by what differs between them, so that runs
// imported from one benchmark file (one per implementation and timing scope) read differently
// in the GUI's Run box and in `tilescope db runs`; and the run a face opens first.
#include <catch2/catch.hpp>

#include "TempDir.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunLabels.hpp"
#include "measure/RunSettings.hpp"

using namespace ts;

namespace {

RunStart imported_start(const std::string& implementation, TimingScope scope) {
  RunSettings settings;
  settings.results_file = "results.jsonl";
  settings.implementation = implementation;
  settings.timing_scope = scope;
  RunStart start;
  start.collector = "import:runner";
  start.workload = "gemm-sweep";
  start.tool_version = "test";
  start.settings_json = run_settings_json(settings);
  start.device = {"H100", "nvidia-gpu", "", "{}"};
  return start;
}

RunInfo run_info(int64_t id, const RunStart& start, const std::string& started_at,
                 int64_t measurements, RunStatus status = RunStatus::complete) {
  RunInfo r;
  r.id = id;
  r.started_at = started_at;
  r.status = status;
  r.start = start;
  r.measurement_count = measurements;
  return r;
}

}  // namespace

TEST_CASE("two stored runs differing only in timing scope get different labels", "[measure]") {
  test::TempDir dir("run-labels");
  {
    ResultStore store(dir / "r.sqlite");
    store.begin_run(imported_start("cublas", TimingScope::device));
    store.begin_run(imported_start("cublas", TimingScope::host_call));
  }
  const ResultStore store(dir / "r.sqlite", ResultStore::Mode::read_only);
  const std::vector<std::string> labels = run_labels(store.runs());
  REQUIRE(labels.size() == 2);
  CHECK(labels[0] != labels[1]);
  // The scope is what differs, so it is named; the implementation all share is not.
  CHECK_THAT(labels[0], Catch::StartsWith("gemm-sweep, ") && Catch::Contains("timing device"));
  CHECK_THAT(labels[1], Catch::Contains("timing host_call"));
  CHECK_THAT(labels[0], !Catch::Contains("cublas"));
}

TEST_CASE("a run label names every field that differs and only those", "[measure]") {
  const RunStart a = imported_start("cublas", TimingScope::device);
  const RunStart b = imported_start("cublaslt", TimingScope::device);
  RunStart c = imported_start("cublas", TimingScope::device);
  c.collector = "import:nsys";
  // a and b differ by implementation, c from a by collector; the scope and device are shared,
  // and c started on another day.
  const std::vector<RunInfo> runs = {run_info(1, a, "2026-12-01T10:00:05Z", 4),
                                     run_info(2, b, "2026-12-01T10:00:40Z", 4),
                                     run_info(3, c, "2026-12-02T09:30:00Z", 4)};
  CHECK(run_labels(runs) ==
        std::vector<std::string>{"gemm-sweep, import:runner, cublas, 2026-12-01 10:00",
                                 "gemm-sweep, import:runner, cublaslt, 2026-12-01 10:00",
                                 "gemm-sweep, import:nsys, cublas, 2026-12-02 09:30"});
}

TEST_CASE("a lone run is labelled by its workload, device and collector", "[measure]") {
  RunStart host;
  host.collector = "host";
  host.workload = "host-suite";
  host.settings_json = "{}";
  host.device = {"this host", "host-cpu", "00000000000000aa", "{}"};
  CHECK(run_labels({run_info(7, host, "2026-12-02T14:00:00Z", 90)}) ==
        std::vector<std::string>{"host-suite on this host, host"});
  CHECK(run_labels({}).empty());
}

TEST_CASE("the first run shown is the open graph's, else a predicted one, else the newest",
          "[measure]") {
  RunStart host;
  host.collector = "host";
  host.workload = "host-suite";
  host.device = {"this host", "host-cpu", "00000000000000aa", "{}"};
  RunStart recalibrated = host;
  recalibrated.device.arch_hash = "00000000000000bb";
  const RunStart imported = imported_start("cublas", TimingScope::device);  // no graph
  const std::vector<RunInfo> runs = {
      run_info(1, host, "2026-12-01T10:00:00Z", 90),
      run_info(2, recalibrated, "2026-12-01T11:00:00Z", 90),
      run_info(3, recalibrated, "2026-12-01T12:00:00Z", 3, RunStatus::cancelled),
      run_info(4, imported, "2026-12-01T13:00:00Z", 40),
      run_info(5, host, "2026-12-01T14:00:00Z", 0, RunStatus::incomplete)};
  // The graph of runs 1 and 5 is open: run 5 holds nothing, so run 1.
  CHECK(most_interesting_run(runs, "00000000000000aa") == 1);
  // No graph open: the predicted runs beat the import; of them the complete one beats the
  // newer cancelled one.
  CHECK(most_interesting_run(runs, "") == 2);
  // A graph none of them was predicted on: as with none open.
  CHECK(most_interesting_run(runs, "00000000000000cc") == 2);
  CHECK(most_interesting_run({runs[3]}, "") == 4);
  CHECK_FALSE(most_interesting_run({runs[4]}, "00000000000000aa").has_value());
}
