// The host thread issuing a GPU's kernels (HostTimeline.hpp): every figure worked by hand.
#include <catch2/catch.hpp>

#include "SamplePath.hpp"
#include "training/HostTimeline.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::sample;

TEST_CASE("a host-bound chain of short kernels: the GPU waits for the host", "[dist][host]") {
  // Four steps of short kernels: each takes the GPU 1 ms and the host 3 ms to issue. The host
  // ends issuing at 3, 6, 9, 12 ms; the GPU cannot finish a step before its last kernel is
  // issued: max(0 + 1, 3) = 3, max(3 + 1, 6) = 6, 9, 12. The GPU is idle 2 ms of every 3.
  const HostTimeline t = run_ahead_steps({{1e-3, 3e-3}, {1e-3, 3e-3}, {1e-3, 3e-3}, {1e-3, 3e-3}});
  REQUIRE(t.device_end_s.size() == 4);
  CHECK(t.device_end_s[0] == Approx(3e-3));
  CHECK(t.device_end_s[1] == Approx(6e-3));
  CHECK(t.end_s() == Approx(12e-3));
  CHECK(t.host[2].start_s == Approx(6e-3));
  CHECK(t.host[2].end_s == Approx(9e-3));
}

TEST_CASE("the host runs ahead of long kernels and the queue carries the slack over",
          "[dist][host]") {
  // Two long steps (GPU 5 ms, host 1 ms), then two short ones (GPU 1 ms, host 3 ms). Host ends:
  // 1, 2, 5, 8 ms. GPU: max(0 + 5, 1) = 5, max(5 + 5, 2) = 10, max(10 + 1, 5) = 11,
  // max(11 + 1, 8) = 12 ms: the short steps' issuing was done while the GPU still ran the long
  // ones. Synchronised at every step (a pipeline's stages), each lasts the longer of the two:
  // 5 + 5 + 3 + 3 = 16 ms.
  const std::vector<StepWork> steps{{5e-3, 1e-3}, {5e-3, 1e-3}, {1e-3, 3e-3}, {1e-3, 3e-3}};
  const HostTimeline t = run_ahead_steps(steps);
  CHECK(t.device_end_s[1] == Approx(10e-3));
  CHECK(t.device_end_s[2] == Approx(11e-3));
  CHECK(t.end_s() == Approx(12e-3));
  CHECK(t.host[3].end_s == Approx(8e-3));
  double synchronised = 0;
  for (const StepWork& w : steps) synchronised += synchronised_step_s(w);
  CHECK(synchronised == Approx(16e-3));
}

TEST_CASE("no steps: nothing issued, nothing run", "[dist][host]") {
  const HostTimeline t = run_ahead_steps({});
  CHECK(t.end_s() == 0);
  CHECK(t.host.empty());
}

TEST_CASE("a small GPT on one GPU: its host synchronises at every step, timers or not",
          "[dist][host][simulate]") {
  // GPT 0.355B (24 layers, hidden 1024) on one A100, micro-batch 1, 4 micro-batches. With
  // Megatron v2.x's timers the host synchronises with the GPU around every step; without them
  // get_batch still does (broadcast_data copies the batch sizes back to the host, .cpu()). Each
  // step begins with its host's issuing either way.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = parse_transformer_model(R"(version: 1
kind: model
name: gpt-355m
family: gpt
layers: 24
hidden: 1024
heads: 16
ffn: 4096
vocab: 51200
seq_len: 2048
)",
                                                     "gpt-355m.yaml");
  const std::string body = R"(version: 1
kind: strategy
name: one-gpu
data_parallel: {degree: 1}
tensor_parallel: {degree: 1}
pipeline_parallel: {degree: 1}
batch: {global: 4, micro: 1}
recompute: none
)";
  for (const char* timers : {"", "framework: {timers_synchronize: false}\n"}) {
    INFO(timers);
    const TrainingSimulation r =
        simulate_training(m, parse_parallel_strategy(body + timers, "s.yaml"), selene);
    REQUIRE(r.host_issue.size() == 1);
    const auto& issues = r.host_issue.front();
    REQUIRE(issues.size() == 8);  // 4 forwards, 4 backwards
    const auto& ids = r.pipeline.order.front();
    for (size_t k = 0; k < 8; ++k)
      CHECK(issues[k].start_s == Approx(r.pipeline_times.start_s[static_cast<size_t>(ids[k])]));
    double idle = -1;
    for (const TimeShare& t : r.breakdown)
      if (t.what == "host-bound idle") idle = t.seconds;
    CHECK(idle >= 0);
  }
}

TEST_CASE("a graph model without timers: the host runs ahead of its GPU",
          "[dist][host][simulate]") {
  // One GPU, a graph block of a long GEMM and many short vector kernels, 4 micro-batches, no
  // timers: nothing makes the host wait, so it issues step after step (each issuing starts where
  // the last ended) and the iteration is no shorter than its issuing; with the timers it starts
  // each step with its GPU and the iteration is no shorter.
  Cluster one = load_cluster(sample("/dist/clusters/selene.yaml"));
  one.nodes = 1;
  one.devices_per_node = 1;
  const TransformerModel m = parse_transformer_model(R"(version: 1
kind: model
name: mixed
family: graph
layers: 8
seq_len: 512
hidden: 1024
block:
  - {name: up, type: gemm, M: tokens, N: 4096, K: hidden}
  - {name: norm, type: layernorm, rows: tokens, cols: hidden}
  - {name: scale, type: mul, rows: tokens, cols: hidden}
  - {name: residual, type: add, rows: tokens, cols: hidden}
)",
                                                     "mixed.yaml");
  const std::string body = R"(version: 1
kind: strategy
name: one-gpu
data_parallel: {degree: 1}
tensor_parallel: {degree: 1}
pipeline_parallel: {degree: 1}
batch: {global: 4, micro: 1}
recompute: none
)";
  const TrainingSimulation synced =
      simulate_training(m, parse_parallel_strategy(body, "synced.yaml"), one);
  const TrainingSimulation ahead = simulate_training(
      m, parse_parallel_strategy(body + "framework: {timers_synchronize: false}\n", "ahead.yaml"),
      one);
  const auto& a = ahead.host_issue.front();
  REQUIRE(a.size() == 8);
  double issuing = a.front().end_s - a.front().start_s;
  for (size_t k = 1; k < 8; ++k) {
    CHECK(a[k].start_s == Approx(a[k - 1].end_s));
    issuing += a[k].end_s - a[k].start_s;
  }
  CHECK(ahead.iteration_s >= issuing);
  CHECK(ahead.iteration_s <= synced.iteration_s * (1 + 1e-12));
}
