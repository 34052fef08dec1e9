// Memory over time on the timeline (issue 19, item 4): the simulator writes each pipeline
// stage's GPU memory as a Chrome-trace counter, and the timeline reader gives it back as a
// step function that the GUI's timeline and the report draw under the Gantt chart.
#include <catch2/catch.hpp>
#include <string>

#include "SamplePath.hpp"
#include "training/MemoryTimeline.hpp"
#include "training/SimulationJson.hpp"
#include "training/SimulationTimeline.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::sample;

namespace {}  // namespace

TEST_CASE("counter events read back as a step function in time order", "[dist][timeline]") {
  // Out of order on purpose (a merged trace need not be sorted); one counter with a text
  // argument, which is no series and is skipped.
  const std::string trace = R"({"traceEvents": [
    {"ph": "X", "name": "F mb0", "tid": 0, "ts": 0, "dur": 300},
    {"ph": "C", "name": "memory stage 0", "pid": 0, "ts": 200, "args": {"GiB": 30.5}},
    {"ph": "C", "name": "memory stage 0", "pid": 0, "ts": 0, "args": {"GiB": 20}},
    {"ph": "C", "name": "memory stage 0", "pid": 0, "ts": 100, "args": {"GiB": 42.25}},
    {"ph": "C", "name": "note", "pid": 0, "ts": 100, "args": {"text": "hello"}}]})";
  const SimulationTimeline t = parse_simulation_timeline(trace, "trace.json");
  REQUIRE(t.counters.size() == 1);
  const TimelineCounter& c = t.counters[0];
  CHECK(c.name == "memory stage 0");
  CHECK(c.unit == "GiB");
  REQUIRE(c.samples.size() == 3);
  // Chrome traces count microseconds.
  const double times[] = {0, 100e-6, 200e-6}, values[] = {20, 42.25, 30.5};
  for (size_t i = 0; i < 3; ++i) {
    CHECK(c.samples[i].first == Approx(times[i]));
    CHECK(c.samples[i].second == values[i]);
  }
  CHECK(c.peak() == 42.25);
  CHECK(t.tracks.size() == 1);  // a counter is no span track
}

TEST_CASE("what simulate --out writes has every stage's memory over time, peak included",
          "[dist][timeline][simulate]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt3-175b.yaml"));
  const ParallelStrategy s =
      load_parallel_strategy(sample("/dist/strategies/gpt3-175b-seq-sel.yaml"));
  const TrainingSimulation r =
      simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  const std::string trace = simulation_trace_json(r, s.pp.value);
  const SimulationTimeline t =
      parse_simulation_timeline(simulation_file_json(m, s, selene, r, trace), "sim.json");
  REQUIRE(r.stage_memory.size() > 1);
  REQUIRE(t.counters.size() == r.stage_memory.size());
  const double gib = 1024.0 * 1024 * 1024;
  double peak = 0;
  for (size_t st = 0; st < t.counters.size(); ++st) {
    const TimelineCounter& c = t.counters[st];
    CHECK(c.unit == "GiB");
    CHECK(c.samples.size() == r.stage_memory[st].size());
    CHECK(c.peak() == Approx(peak_bytes(r.stage_memory[st]) / gib));
    // Memory never drops below what the stage holds all the time: its model state.
    for (const auto& [time, value] : c.samples) CHECK(value >= r.model_state_bytes / gib * 0.999);
    peak = std::max(peak, c.peak());
  }
  // The summary's peak is the highest of the stages' curves.
  CHECK(peak == Approx(r.peak_memory_bytes / gib));
}
