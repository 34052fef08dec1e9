// The run catalog and the measurement note's case (issue 36): which runs belong to which device,
// what each is called, which is opened first, which are predicted on the open graph, and when
// the measurements shown need a note. Core decides them so that the GUI's run browser has no rule
// of its own; here they are checked on hand-made runs.
#include <catch2/catch.hpp>

#include "measure/MeasurementFit.hpp"
#include "measure/RunCatalog.hpp"
#include "measure/RunSettings.hpp"

using namespace ts;

namespace {

RunInfo catalog_test_run(int64_t id, const DeviceInfo& device, int64_t measurements,
                         RunStatus status = RunStatus::complete) {
  RunInfo r;
  r.id = id;
  r.started_at = "2026-12-01T10:00:00Z";
  r.status = status;
  r.start.collector = "host";
  r.start.workload = "host-suite";
  r.start.settings_json = "{}";
  r.start.device = device;
  r.measurement_count = measurements;
  return r;
}

const DeviceInfo kHost{"this host", "host-cpu", "00000000000000aa", "{}"};
const DeviceInfo kHostRecalibrated{"this host", "host-cpu", "00000000000000bb", "{}"};
const DeviceInfo kGpu{"H100", "nvidia-gpu", "00000000000000cc", "{}"};
const DeviceInfo kImported{"H100", "nvidia-gpu", "", "{}"};  // a trace: names no graph

}  // namespace

TEST_CASE("devices of one name on different graphs get distinct display names", "[measure]") {
  const RunCatalog catalog =
      run_catalog({catalog_test_run(1, kHost, 5), catalog_test_run(2, kGpu, 5),
                   catalog_test_run(3, kHostRecalibrated, 5)});
  REQUIRE(catalog.devices.size() == 3);
  // Each of the same-named devices is numbered by its place, the other is left as it is.
  CHECK(catalog.devices[0].display_name == "this host (host-cpu) #1");
  CHECK(catalog.devices[1].display_name == "H100 (nvidia-gpu)");
  CHECK(catalog.devices[2].display_name == "this host (host-cpu) #3");
  CHECK(catalog.devices[2].device.arch_hash == "00000000000000bb");
}

TEST_CASE("a device is its name, kind, graph and properties together", "[measure]") {
  DeviceInfo other_properties = kHost;
  other_properties.properties_json = R"({"threads":4})";
  const RunCatalog catalog =
      run_catalog({catalog_test_run(1, kHost, 5), catalog_test_run(2, kHost, 5),
                   catalog_test_run(3, other_properties, 5)});
  REQUIRE(catalog.devices.size() == 2);
  CHECK(catalog.runs[0].device == catalog.runs[1].device);
  CHECK(catalog.runs[2].device != catalog.runs[0].device);
  CHECK(catalog.devices[0].display_name != catalog.devices[1].display_name);
}

TEST_CASE("runs are grouped by device, in their order", "[measure]") {
  const RunCatalog catalog = run_catalog(
      {catalog_test_run(1, kGpu, 5), catalog_test_run(2, kHost, 5), catalog_test_run(3, kGpu, 5),
       catalog_test_run(4, kHost, 5), catalog_test_run(5, kGpu, 5)});
  REQUIRE(catalog.devices.size() == 2);
  // Devices in the order of their first runs.
  CHECK(catalog.devices[0].device.name == "H100");
  CHECK(catalog.devices[1].device.name == "this host");
  CHECK(catalog.runs_of(0) == std::vector<size_t>{0, 2, 4});
  CHECK(catalog.runs_of(1) == std::vector<size_t>{1, 3});
  CHECK(catalog.runs_of(2).empty());
  REQUIRE(catalog.find(4) != nullptr);
  CHECK(catalog.find(4)->device == 1);
  CHECK(catalog.find(99) == nullptr);
}

TEST_CASE("a run's label is its id, what tells it apart, its count and its status", "[measure]") {
  RunInfo run = catalog_test_run(7, kHost, 90, RunStatus::cancelled);
  RunSettings settings;
  settings.workload_file = "samples/workloads/host-suite.yaml";
  run.start.settings_json = run_settings_json(settings);
  const RunCatalog catalog = run_catalog({run});
  REQUIRE(catalog.runs.size() == 1);
  CHECK(catalog.runs[0].label ==
        "run 7: host-suite on this host, host, 90 measurements (cancelled)");
  CHECK(catalog.runs[0].workload_file == "samples/workloads/host-suite.yaml");
  CHECK(run_catalog({catalog_test_run(8, kHost, 1)}).runs[0].workload_file.empty());
}

TEST_CASE("an imported run without a graph is predicted on the open graph", "[measure]") {
  const RunCatalog catalog =
      run_catalog({catalog_test_run(1, kImported, 40), catalog_test_run(2, kGpu, 40)});
  REQUIRE(catalog.runs.size() == 2);
  CHECK(catalog.runs[0].predicted_on_open_graph);
  CHECK_FALSE(catalog.runs[1].predicted_on_open_graph);
  // Same name and kind, but one names a graph and one does not: two devices.
  CHECK(catalog.devices.size() == 2);
}

TEST_CASE("the run opened first is the open graph's, else the newest", "[measure]") {
  const RunCatalog catalog = run_catalog(
      {catalog_test_run(1, kHost, 90), catalog_test_run(2, kGpu, 90),
       catalog_test_run(3, kImported, 40), catalog_test_run(4, kHost, 0, RunStatus::incomplete)});
  CHECK(catalog.run_to_open("00000000000000aa") == 0u);  // run 4 holds nothing
  CHECK(catalog.run_to_open("00000000000000cc") == 1u);
  // No run holds a measurement: the newest.
  const RunCatalog empty_runs = run_catalog(
      {catalog_test_run(1, kHost, 0), catalog_test_run(2, kGpu, 0, RunStatus::incomplete)});
  CHECK(empty_runs.run_to_open("00000000000000aa") == 1u);
  CHECK_FALSE(run_catalog({}).run_to_open("").has_value());
}

TEST_CASE("the measurement note's case is decided from what is shown", "[measure]") {
  ShownMeasurements shown;
  shown.measurements = 12;
  shown.operators_measured = 4;
  shown.workload_open = true;
  shown.run_arch_hash = "00000000000000aa";
  shown.open_arch_hash = "00000000000000aa";
  CHECK(measurement_fit(shown) == MeasurementFit::fits);

  SECTION("none of the measurements is an operator of the open workload") {
    shown.operators_measured = 0;
    CHECK(measurement_fit(shown) == MeasurementFit::other_workload);
    shown.run_arch_hash = "";  // a CSV, or an imported run: the same
    CHECK(measurement_fit(shown) == MeasurementFit::other_workload);
    shown.workload_open = false;  // no workload: nothing to be an operator of
    CHECK(measurement_fit(shown) == MeasurementFit::fits);
  }
  SECTION("nothing shown needs no note") {
    shown.measurements = 0;
    shown.operators_measured = 0;
    CHECK(measurement_fit(shown) == MeasurementFit::fits);
  }
  SECTION("a run predicted on another graph than the open one") {
    shown.open_arch_hash = "00000000000000bb";
    CHECK(measurement_fit(shown) == MeasurementFit::other_graph);
    shown.open_arch_hash = "";  // no graph open: nothing to compare with
    CHECK(measurement_fit(shown) == MeasurementFit::fits);
  }
  SECTION("a run without a graph, or a CSV, is predicted on the open graph and fits it") {
    shown.run_arch_hash = "";
    shown.open_arch_hash = "00000000000000bb";
    CHECK(measurement_fit(shown) == MeasurementFit::fits);
  }
}
