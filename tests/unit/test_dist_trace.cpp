// The simulated iteration as a Chrome trace that reads like a profile (issue 19, item 4): a
// named process, tracks per stage for compute, tensor-parallel collectives, and the gradient
// all-reduce with the optimizer step, every span with a category and its arguments.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "SamplePath.hpp"
#include "training/ModelState.hpp"
#include "training/SimulationJson.hpp"
#include "training/SimulationTimeline.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::sample;

namespace {}  // namespace

TEST_CASE("the trace holds the collectives, the gradient all-reduce and the optimizer step",
          "[dist][trace]") {
  // GPT-22B (48 layers) with TP 8 x PP 2 x DP 2 on four Selene nodes, 2 micro-batches per
  // replica (global 4, micro 1, dp 2). Each stage holds 24 layers and runs 2 forwards and 2
  // backwards: 4 x 24 = 96 spans of tensor-parallel collectives per stage, 192 in all.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s = parse_parallel_strategy(R"(version: 1
kind: strategy
name: trace
data_parallel: {degree: 2}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 2, schedule: 1f1b}
batch: {global: 4, micro: 1}
recompute: selective
)",
                                                     "trace.yaml");
  const TrainingSimulation r =
      simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  const nlohmann::json j = nlohmann::json::parse(simulation_trace_json(r, 2));
  std::map<int64_t, std::string> tracks;
  std::string process;
  int collectives = 0, compute = 0, host_issues = 0;
  const nlohmann::json* all_reduce = nullptr;
  const nlohmann::json* optimizer = nullptr;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks[e["tid"]] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "process_name") process = e["args"]["name"];
    if (e["ph"] != "X") continue;
    REQUIRE(e.contains("cat"));
    const std::string name = e["name"];
    if (name.rfind("tensor-parallel all-reduce", 0) == 0) {
      ++collectives;
      CHECK(e["cat"] == "collective");
      // Two all-reduces of the layer's activations, 2048 x 6144 x 2 bytes each.
      CHECK(e["args"]["bytes"].get<double>() == Approx(2 * 2048.0 * 6144 * 2));
      CHECK(e["args"]["layer"].get<double>() < 48);
    }
    if (e["cat"] == "forward" || e["cat"] == "backward") {
      ++compute;
      CHECK(e["args"].contains("micro_batch"));
      CHECK(e["args"]["matmul_flops"].get<double>() > 0);
    }
    if (name == "data-parallel all-reduce s1") all_reduce = &e;
    // The host issues each step: with stages it synchronised with its GPU, so each issuing
    // starts with its step (2 forwards and 2 backwards a stage), and the optimizer step's.
    if (e["cat"] == "host") {
      CHECK(name.rfind("issue ", 0) == 0);
      ++host_issues;
    }
    if (name == "optimizer step s1") optimizer = &e;
  }
  CHECK(!process.empty());
  CHECK(collectives == 192);
  CHECK(compute == 2 * 2 * 2);
  CHECK(host_issues == 2 * (2 * 2 + 1));
  // Per stage its collectives and its gradients and optimizer, then per stage its host.
  CHECK(tracks.at(tracks.size() - 6) == "stage 0 tensor-parallel collectives");
  CHECK(tracks.at(tracks.size() - 3) == "stage 1 gradients and optimizer");
  CHECK(tracks.at(tracks.size() - 2) == "stage 0 host (CPU)");
  CHECK(tracks.at(tracks.size() - 1) == "stage 1 host (CPU)");
  // The gradient all-reduce follows the pipeline with the gradients of a GPU's shard (2 bytes a
  // parameter), and the optimizer step ends the iteration.
  REQUIRE(all_reduce != nullptr);
  REQUIRE(optimizer != nullptr);
  CHECK((*all_reduce)["cat"] == "collective");
  CHECK((*all_reduce)["args"]["bytes"].get<double>() ==
        Approx(2 * model_state_per_gpu(m, s).parameters));
  double dp_s = -1;
  for (const TimeShare& part : r.breakdown)
    if (part.what == "data-parallel all-reduce") dp_s = part.seconds;
  CHECK((*all_reduce)["dur"].get<double>() == Approx(dp_s * 1e6).epsilon(1e-9));
  CHECK(((*optimizer)["ts"].get<double>() + (*optimizer)["dur"].get<double>()) ==
        Approx(r.iteration_s * 1e6).epsilon(1e-9));
  // The timeline view reads it back, the new tracks with it.
  const SimulationTimeline t = parse_simulation_timeline(j.dump(), "trace.json");
  int named = 0;
  for (const TimelineTrack& track : t.tracks)
    if (track.name == "stage 1 gradients and optimizer") ++named;
  CHECK(named == 1);
}
