// The summary of a simulation file as the report's table shows it: each figure once, under its
// own name, with the memory figures `tilescope simulate` prints (the table used to repeat rows
// with empty names, and had no memory).
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <string>

#include "SamplePath.hpp"
#include "training/SimulationJson.hpp"
#include "training/SimulationTimeline.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::sample;

namespace {

std::string fact(const SimulationTimeline& t, const std::string& what) {
  for (const auto& [name, value] : t.facts)
    if (name == what) return value;
  return "(none)";
}

}  // namespace

TEST_CASE("a simulation file's facts name each figure once, memory included",
          "[dist][simulate][report]") {
  // A hand-written summary: 1.5 s, 0.4 MFU, 42.25 GiB of state, 12.5 of activations, a peak of
  // 90.25 of 80 GiB.
  const std::string file = R"({"model": "m", "strategy": "s", "cluster": "c", "gpus": 8,
    "summary": {"iteration_s": 1.5, "tokens_per_s": 5461.3, "mfu": 0.4, "hfu": 0.5,
      "bubble_fraction": 0.125, "model_state_gib_per_gpu": 42.25, "activation_gib_per_gpu": 12.5,
      "peak_memory_gib_per_gpu": 90.25, "device_memory_gib": 80, "out_of_memory": true},
    "timeline": {"traceEvents": [{"ph": "X", "name": "F mb0", "tid": 0, "ts": 0, "dur": 1}]}})";
  const SimulationTimeline t = parse_simulation_timeline(file, "sim.json");
  CHECK(t.iteration_s == 1.5);
  CHECK(fact(t, "tokens/s") == "5461");
  CHECK(fact(t, "MFU / HFU") == "40.0 % / 50.0 %");
  CHECK(fact(t, "pipeline bubble") == "12.5 % of busy time");
  CHECK(fact(t, "model state") == "42.25 GiB per GPU (weights, gradients, optimizer)");
  CHECK(fact(t, "activations") == "12.50 GiB per GPU (first pipeline stage)");
  CHECK(fact(t, "peak memory") == "90.25 GiB per GPU (over the iteration as run)");
  CHECK(fact(t, "OUT OF MEMORY") == "90.25 GiB needed, the device has 80.00 GiB");
  // Every fact has a name, none twice, and the iteration (a field of its own) is not one.
  for (size_t i = 0; i < t.facts.size(); ++i) {
    CHECK_FALSE(t.facts[i].first.empty());
    CHECK(t.facts[i].first != "iteration");
    for (size_t k = 0; k < i; ++k) CHECK(t.facts[k].first != t.facts[i].first);
  }
  // The GUI's summary lines: the iteration first, then the facts.
  REQUIRE(t.summary.size() == t.facts.size() + 1);
  CHECK(t.summary[0] == "iteration 1.500 s");
  CHECK(t.summary[4] == "model state 42.25 GiB per GPU (weights, gradients, optimizer)");
}

TEST_CASE("a schema-2 simulation file: the trace at the top, the peak MFU divides by named",
          "[dist][simulate][report]") {
  const std::string file = R"({"schema_version": 2, "model": "m", "strategy": "s",
    "cluster": "c", "gpus": 8, "summary": {"iteration_s": 1.5, "mfu": 0.383, "hfu": 0.511,
    "peak_tflops_per_gpu": 312.0},
    "displayTimeUnit": "ms",
    "traceEvents": [{"ph": "X", "name": "F mb0", "pid": 0, "tid": 0, "ts": 0, "dur": 1}]})";
  const SimulationTimeline t = parse_simulation_timeline(file, "sim.json");
  CHECK(t.iteration_s == 1.5);
  CHECK(t.title == "m with s on c (8 GPUs)");
  CHECK(fact(t, "MFU / HFU") == "38.3 % / 51.1 % of 312 TFLOP/s per GPU (datasheet peak)");
  REQUIRE(t.tracks.size() == 1);
  CHECK(t.tracks.front().spans.size() == 1);
}

TEST_CASE("what simulate --out writes reads back with its memory figures",
          "[dist][simulate][report]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s =
      load_parallel_strategy(sample("/dist/strategies/gpt-22b-seq-sel.yaml"));
  const TrainingSimulation r =
      simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  const std::string trace = simulation_trace_json(r, s.pp.value);
  const SimulationTimeline t =
      parse_simulation_timeline(simulation_file_json(m, s, selene, r, trace), "sim.json");
  const double gib = 1024.0 * 1024 * 1024;
  CHECK(fact(t, "peak memory") ==
        fmt::format("{:.2f} GiB per GPU (over the iteration as run)", r.peak_memory_bytes / gib));
  CHECK(fact(t, "model state").rfind(fmt::format("{:.2f} GiB", r.model_state_bytes / gib), 0) == 0);
  CHECK(fact(t, "OUT OF MEMORY") == "(none)");  // 22B with seq+sel fits in 80 GB
}
