// The first training-simulation engine on the Table 5 configurations of Korthikanti et al. 2022
// (shared/validation/README.md). These tests check what the engine must get right whatever its
// accuracy: the published ordering of the two recomputation strategies, the pipeline bubble of
// the schedule it runs, the scaling of the work, and its errors. Accuracy against the published
// times is reported by docs/dist.md, not asserted here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "training/ActivationMemory.hpp"
#include "training/ModelState.hpp"
#include "training/StrategySweep.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;

namespace {

TrainingSimulation simulate(const std::string& model, const std::string& mode,
                            const Cluster& cluster) {
  return simulate_training(
      load_transformer_model(sample("/dist/models/" + model + ".yaml")),
      load_parallel_strategy(sample("/dist/strategies/" + model + "-" + mode + ".yaml")), cluster);
}

// The seconds of one line of a simulation's breakdown (-1 when it has no such line).
double seconds_of(const TrainingSimulation& r, const std::string& what) {
  for (const TimeShare& t : r.breakdown)
    if (t.what == what) return t.seconds;
  return -1.0;
}

}  // namespace

TEST_CASE("sequence parallelism with selective recomputation beats full recomputation",
          "[dist][simulate][slow]") {
  // Korthikanti et al. 2022, Table 5: seq+sel is faster than full for every model (by 23-29 %).
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  for (const char* model : {"gpt-22b", "gpt3-175b", "gpt-530b", "gpt-1t"}) {
    INFO(model);
    const TrainingSimulation full = simulate(model, "full", selene);
    const TrainingSimulation sel = simulate(model, "seq-sel", selene);
    CHECK(sel.iteration_s < full.iteration_s);
    // Full recomputation runs each layer's forward pass once more: its hardware FLOPs exceed its
    // model FLOPs by the layers' forward share, about a third.
    CHECK(full.hardware_flops > 1.3 * full.model_flops);
    CHECK(sel.hardware_flops < 1.1 * sel.model_flops);
    CHECK(full.mfu > 0);
    CHECK(full.mfu < full.hfu);
  }
}

TEST_CASE("the simulated pipeline leaves the bubble of its schedule", "[dist][simulate]") {
  // GPT-3 175B on 8 stages with 3 chunks each and 64 micro-batches: (p - 1)/(v m) = 7/192 of
  // idle time, plus what the stage-to-stage transfers add (small next to a stage's work).
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TrainingSimulation r = simulate("gpt3-175b", "seq-sel", selene);
  CHECK(r.bubble_fraction >= 7.0 / 192 - 1e-9);
  CHECK(r.bubble_fraction <= 1.1 * 7.0 / 192);
  // The breakdown adds up to the iteration.
  double sum = 0;
  for (const TimeShare& t : r.breakdown) sum += t.seconds;
  CHECK(sum == Approx(r.iteration_s).epsilon(1e-9));
}

TEST_CASE("without a pipeline, twice the batch takes twice the time", "[dist][simulate][slow]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  ParallelStrategy s = load_parallel_strategy(sample("/dist/strategies/gpt-22b-seq-sel.yaml"));
  const TrainingSimulation once = simulate_training(m, s, selene);
  s.global_batch.value *= 2;
  const TrainingSimulation twice = simulate_training(m, s, selene);
  // Only the optimizer step, and the norms' gradient all-reduce before it (sequence
  // parallelism), do not grow with the batch.
  const double fixed = once.optimizer_s + once.grad_sync_s;
  CHECK(once.grad_sync_s > 0);
  CHECK(once.breakdown.back().seconds == once.optimizer_s);
  CHECK(twice.iteration_s - fixed == Approx(2 * (once.iteration_s - fixed)));
  // The fixed optimizer step is spread over more tokens.
  CHECK(twice.mfu > once.mfu);
}

TEST_CASE("memory per GPU: the Table 5 runs fit in 80 GB, tensor parallelism alone does not",
          "[dist][simulate][slow]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  for (const char* model : {"gpt-22b", "gpt3-175b", "gpt-530b", "gpt-1t"})
    for (const char* mode : {"full", "seq-sel"}) {
      INFO(model << " " << mode);
      const TrainingSimulation r = simulate(model, mode, selene);
      CHECK_FALSE(r.out_of_memory);
      CHECK(r.device_memory_bytes == Approx(80e9));
    }
  // The 1T model with neither recomputation nor sequence parallelism needs 32.96 + 131.25 GiB per
  // GPU (Korthikanti et al. 2022, Figure 1): more than an A100 holds.
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-1t.yaml"));
  ParallelStrategy s = load_parallel_strategy(sample("/dist/strategies/gpt-1t-full.yaml"));
  s.recompute = Recompute::none;
  const TrainingSimulation r = simulate_training(m, s, selene);
  CHECK(r.out_of_memory);
  CHECK(r.activation_bytes > 80e9);
}

TEST_CASE("a strategy larger than its cluster is an error naming both counts", "[dist][simulate]") {
  Cluster small = load_cluster(sample("/dist/clusters/selene.yaml"));
  small.nodes = 4;  // 32 GPUs
  const InputError e = input_error_of([&] { simulate("gpt3-175b", "full", small); });
  CHECK(e.message() == "the strategy needs 64 GPUs, but cluster 'selene' has 32");
}

TEST_CASE("a sweep simulates every valid point of its grid, fastest first",
          "[dist][simulate][slow]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy base =
      load_parallel_strategy(sample("/dist/strategies/gpt-22b-seq-sel.yaml"));
  const std::vector<SweepPoint> points = sweep_strategies(
      m, base, selene, parse_strategy_grid({"tp=1,2,4,8,16", "pp=1,2,3", "mbs=2,4"}));
  // On 8 GPUs with a global batch of 4: tp x pp must divide 8 (no 16, no 3), tp the 64 heads,
  // pp the 48 layers, and dp x mbs the batch of 4. That leaves (tp, pp, mbs) with dp = 8/(tp pp):
  // dp 1: (8,1), (4,2), (2,4 is pp 4: not on the grid) -> (8,1,2), (8,1,4), (4,2,2), (4,2,4);
  // dp 2: (4,1), (2,2), (1,4 no) with mbs 2 -> (4,1,2), (2,2,2);
  // dp 4: (2,1), (1,2) with mbs 1 only -> none; dp 8: none.
  CHECK(points.size() == 6);
  bool seen_oom = false;
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    INFO(p.strategy.name);
    CHECK_NOTHROW(check_strategy_fits(p.strategy, m, 8));
    if (p.result.out_of_memory)
      seen_oom = true;
    else
      CHECK_FALSE(seen_oom);  // every point that fits comes before those that do not
    if (i > 0 && p.result.out_of_memory == points[i - 1].result.out_of_memory)
      CHECK(p.result.iteration_s >= points[i - 1].result.iteration_s);
  }
  // The base strategy is on the grid and simulates as it does alone.
  const TrainingSimulation alone = simulate_training(m, base, selene);
  bool found = false;
  for (const SweepPoint& p : points)
    if (p.strategy.tp.value == 8 && p.strategy.pp.value == 1 && p.strategy.micro_batch.value == 4) {
      found = true;
      CHECK(p.result.iteration_s == Approx(alone.iteration_s));
    }
  CHECK(found);
}

TEST_CASE("sweep axes that cannot be read are errors naming the text", "[dist][simulate]") {
  // simulate --sweep reads the strategy grid's keys, less cluster (it runs on one --cluster).
  const auto sweep_axes = [](const std::vector<std::string>& texts) {
    return parse_strategy_grid(texts, "strategy sweep", false);
  };
  CHECK(sweep_axes({"tp=1,2", "mbs=4"}).tp == std::vector<int64_t>{1, 2});
  CHECK(sweep_axes({"tp=1,2", "mbs=4"}).micro_batch == std::vector<int64_t>{4});
  const InputError unknown = input_error_of([&] { sweep_axes({"ep=2"}); });
  CHECK(unknown.message() ==
        "'ep=2': unknown key 'ep'; expected tp, pp, dp, micro-batch (mbs) or schedule");
  CHECK(unknown.where().file == "strategy sweep");
  CHECK(input_error_of([&] { sweep_axes({"cluster=a.yaml"}); }).message() ==
        "'cluster=a.yaml': unknown key 'cluster'; expected tp, pp, dp, micro-batch (mbs) or "
        "schedule");
  CHECK(input_error_of([&] { sweep_axes({"tp=1,x"}); }).message() ==
        "'tp=1,x': 'x' is not a whole number from 1 to 65536");
  CHECK(input_error_of([&] { sweep_axes({"pp"}); }).message() ==
        "'pp': expected KEY=V1,V2,... with KEY tp, pp, dp, micro-batch (mbs) or schedule");
}

TEST_CASE("the data-parallel symmetry shortcut gives the iteration time of every replica run",
          "[dist][simulate]") {
  // 32 GPUs: GPT-22B with TP 2 x PP 4 x DP 4, 1F1B over 8 micro-batches. With the shortcut one
  // pipeline runs and the gradient all-reduce follows it; without, all 4 replicas' pipelines
  // run on the executor, and each stage's all-reduce runs as ring steps on its own NIC links,
  // starting when that stage is done in every replica. Same answer within 0.1 %.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  for (const char* schedule : {"1f1b", "gpipe"}) {
    INFO(schedule);
    const ParallelStrategy s = parse_parallel_strategy(std::string(R"(version: 1
kind: strategy
name: dp4
data_parallel: {degree: 4, zero: 1}
tensor_parallel: {degree: 2, sequence_parallel: true}
pipeline_parallel: {degree: 4, schedule: )") + schedule + R"(}
batch: {global: 32, micro: 1}
recompute: selective
)",
                                                       "dp4.yaml");
    REQUIRE(s.gpus() == 32);
    const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
    const TrainingSimulation shortcut = simulate_training(m, s, selene, roofline);
    SimulationOptions every;
    every.exploit_symmetry = false;
    const TrainingSimulation all = simulate_training(m, s, selene, roofline, every);
    // The full run had every replica's tasks and the rings' steps on the executor.
    CHECK(all.simulated_tasks > 4 * shortcut.simulated_tasks);
    CHECK(all.iteration_s == Approx(shortcut.iteration_s).epsilon(0.001));
    // The all-reduce is a real part of the iteration here, not a rounding error.
    CHECK(seconds_of(all, "data-parallel all-reduce") > 0.01 * all.iteration_s);
  }
}

TEST_CASE("memory traced through the schedule peaks at the published activation count",
          "[dist][simulate][memory]") {
  // The executor's memory over time (each chunk's activations held from its forward to its
  // backward) must reach, on the first stage, what Korthikanti et al. count per schedule:
  // 1F1B p micro-batches, GPipe all m, interleaved L (1 + (p - 1)/(p v)) layers' worth, on top
  // of the model state; and come back to the model state when the iteration ends.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  for (const char* pipeline : {"{degree: 4, schedule: 1f1b}", "{degree: 4, schedule: gpipe}",
                               "{degree: 4, schedule: interleaved, chunks: 3}"}) {
    INFO(pipeline);
    const ParallelStrategy s = parse_parallel_strategy(std::string(R"(version: 1
kind: strategy
name: mem
data_parallel: {degree: 1, zero: 0}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: )") + pipeline + R"(
batch: {global: 8, micro: 1}
recompute: selective
)",
                                                       "mem.yaml");
    const TrainingSimulation r = simulate_training(m, s, selene, roofline);
    REQUIRE(r.stage_memory.size() == 4);
    const double first_stage = peak_bytes(r.stage_memory[0]);
    CHECK(first_stage - r.model_state_bytes ==
          Approx(activation_bytes_per_gpu(m, s)).epsilon(1e-9));
    CHECK(r.peak_memory_bytes == Approx(first_stage).epsilon(1e-12));
    // Later stages hold fewer micro-batches in flight than the first.
    CHECK(peak_bytes(r.stage_memory[3]) <= first_stage);
    for (const auto& stage : r.stage_memory)
      CHECK(stage.back().bytes == Approx(r.model_state_bytes).epsilon(1e-12));
  }
}

TEST_CASE("pipeline sends that overlap compute slow it by the interference factor",
          "[dist][simulate][slow]") {
  // GPT-3 175B seq+sel has 8 stages whose sends overlap the next step's compute: interference
  // lengthens the iteration, by less than the factor itself (only the overlapped part slows).
  // The 22B model on one stage sends nothing: there interference reaches only the tensor-parallel
  // collectives its backward overlaps with GEMMs (TensorParallelOverlap.hpp), and lengthens the
  // iteration by exactly what it adds to them.
  Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  CHECK(selene.interference == Approx(0.1));
  selene.interference = 0;
  const TrainingSimulation alone = simulate("gpt3-175b", "seq-sel", selene);
  const TrainingSimulation single_stage = simulate("gpt-22b", "seq-sel", selene);
  selene.interference = 0.5;
  const TrainingSimulation slowed = simulate("gpt3-175b", "seq-sel", selene);
  CHECK(slowed.iteration_s > alone.iteration_s);
  CHECK(slowed.iteration_s < 1.5 * alone.iteration_s);
  const TrainingSimulation single_slowed = simulate("gpt-22b", "seq-sel", selene);
  const double tp_added = seconds_of(single_slowed, "tensor-parallel communication") -
                          seconds_of(single_stage, "tensor-parallel communication");
  CHECK(tp_added > 0);
  CHECK(single_slowed.iteration_s - single_stage.iteration_s == Approx(tp_added).epsilon(1e-9));
}

TEST_CASE("expert parallelism spreads the experts and adds their all-to-alls",
          "[dist][simulate][moe]") {
  // A GPT with 8 experts per MLP, top-2 routing, on the 8 GPUs of one Selene node: data
  // parallel 8, with the experts on every GPU (ep 1) or one expert per GPU (ep 8).
  const TransformerModel m = parse_transformer_model(R"(version: 1
kind: model
name: moe
family: gpt
layers: 8
hidden: 1024
heads: 16
ffn: 4096
vocab: 51200
seq_len: 2048
experts: 8
top_k: 2
)",
                                                     "moe.yaml");
  auto strategy = [](int ep) {
    return parse_parallel_strategy(std::string(R"(version: 1
kind: strategy
name: ep
data_parallel: {degree: 8, zero: 0}
tensor_parallel: {degree: 1, sequence_parallel: false}
pipeline_parallel: {degree: 1, schedule: 1f1b}
expert_parallel: {degree: )") + std::to_string(ep) +
                                       R"(}
batch: {global: 16, micro: 1}
recompute: none
)",
                                   "ep.yaml");
  };
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  const TrainingSimulation one = simulate_training(m, strategy(1), selene, roofline);
  const TrainingSimulation eight = simulate_training(m, strategy(8), selene, roofline);
  // Each expert's MLP: up and down, 2 x 1024 x 4096 weights plus 4096 + 1024 biases; 8 layers
  // of 8 experts. On ep 8 a GPU keeps one expert of each layer: 7/8 of them fewer, at 18 bytes
  // per parameter (weights, gradients, optimizer state; no ZeRO).
  const double expert = 2.0 * 1024 * 4096 + 4096 + 1024;
  CHECK(one.model_state_bytes - eight.model_state_bytes == Approx(8 * 8 * expert * 7 / 8 * 18));
  // The all-to-alls: per layer and micro-batch, 2 forward and 2 backward, of the routed tokens,
  // 2048 x 2 x 1024 x 2 bytes, pairwise over the NVLink ring of 8: 7 steps of an eighth of them
  // at 230 GB/s, and NCCL's latency once (NcclTuning.hpp: ring/Simple's for 7 steps, 8.4 +
  // 7 x 3.4 = 32.2 us). 2 micro-batches per GPU (16 over 8 replicas).
  const double bytes = 2048.0 * 2 * 1024 * 2;
  const double all_to_all = 7 * (bytes / 8 / 230e9) + 32.2e-6;
  CHECK(seconds_of(one, "expert-parallel communication") == 0);
  CHECK(seconds_of(eight, "expert-parallel communication") ==
        Approx(8 * 4 * all_to_all * 2).epsilon(1e-9));
  // Each GPU of ep 8 holds experts no other replica has: only the dense gradients go round.
  CHECK(seconds_of(eight, "data-parallel all-reduce") <
        0.5 * seconds_of(one, "data-parallel all-reduce"));

  // Without the symmetry shortcut the expert gradients go round their own groups (every
  // ep-th replica), after the dense ring, and the answer is the same.
  const ParallelStrategy four = strategy(4);
  SimulationOptions every;
  every.exploit_symmetry = false;
  CHECK(simulate_training(m, four, selene, roofline, every).iteration_s ==
        Approx(simulate_training(m, four, selene, roofline).iteration_s).epsilon(0.001));
}

TEST_CASE("a data-parallel group across nodes all-reduces hierarchically", "[dist][simulate]") {
  // GPT-22B with TP 2 x DP 16 on 32 GPUs: replicas sit 2 GPUs apart, so a node holds 4 of the
  // 16 and the group spans 4 nodes. The gradients (2 bytes per parameter of a GPU's shard) go
  // reduce-scatter in the node, all-reduce of a quarter over the NICs, all-gather in the node:
  // communication.md's formula with Selene's rates, and NCCL's latency once (NcclTuning.hpp:
  // 16 ranks on 4 nodes, bus min(230, 4 x 25) GB/s, gigabytes of gradients: ring/Simple, 30
  // steps, 2 (4 - 1) = 6 of them between nodes: 8.4 + 24 x 3.4 + 6 x 9.6 = 147.6 us). The run
  // of every replica gives the same iteration.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s = parse_parallel_strategy(R"(version: 1
kind: strategy
name: dp16
data_parallel: {degree: 16, zero: 1}
tensor_parallel: {degree: 2, sequence_parallel: true}
pipeline_parallel: {degree: 1, schedule: 1f1b}
batch: {global: 32, micro: 1}
recompute: selective
)",
                                                     "dp16.yaml");
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  const TrainingSimulation r = simulate_training(m, s, selene, roofline);
  const double S = 2 * model_state_per_gpu(m, s).parameters;
  const double k = 4, N = 4;
  const double expected = 2 * (k - 1) / k * S / 230e9 + 2 * (N - 1) / N * (S / k) / 25e9 + 8.4e-6 +
                          (2 * (k * N - 1) - 2 * (N - 1)) * 3.4e-6 + 2 * (N - 1) * 9.6e-6;
  CHECK(seconds_of(r, "data-parallel all-reduce") == Approx(expected).epsilon(1e-9));
  SimulationOptions every;
  every.exploit_symmetry = false;
  CHECK(simulate_training(m, s, selene, roofline, every).iteration_s ==
        Approx(r.iteration_s).epsilon(0.001));
}

TEST_CASE("an override splits the embedding over fewer tensor-parallel ranks",
          "[dist][simulate][override]") {
  // GPT-22B on one node, TP 8, no pipeline; the override keeps the embedding and the output
  // layer whole on every GPU (degree 1). Each GPU then holds all 51200 x 6144 embedding weights
  // instead of an eighth (18 bytes each, no ZeRO), and the output layer's GEMM, 2048 x 51200 x
  // 6144 per micro-batch, is 8 times an eighth's: compute-bound at 0.8 of peak, its forward and
  // twice-as-long backward add 3 x 7/8 of the whole GEMM's time per micro-batch.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const std::string head = R"(version: 1
kind: strategy
name: emb
data_parallel: {degree: 1, zero: 0}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 1, schedule: 1f1b}
batch: {global: 4, micro: 1}
recompute: selective
)";
  const ParallelStrategy plain = parse_parallel_strategy(head, "plain.yaml");
  const ParallelStrategy whole = parse_parallel_strategy(
      head + "overrides:\n  - {part: embedding, tensor_parallel: {degree: 1}}\n", "whole.yaml");
  CHECK(whole.embedding_tensor_parallel() == 1);
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  const TrainingSimulation a = simulate_training(m, plain, selene, roofline);
  const TrainingSimulation b = simulate_training(m, whole, selene, roofline);
  const double state = 51200.0 * 6144 * 7 / 8 * 18;
  CHECK(b.model_state_bytes - a.model_state_bytes == Approx(state));
  // The fitted A100 graph (its header): tensor cores at 726.324 of 1024 MAC/cycle per SM, HBM
  // at 1.73437 TB/s.
  const double peak = 108.0 * 726.3235421681865 * 2 * 1.41e9;
  const double gemm = 2.0 * 2048 * 51200 * 6144 / (0.8 * peak);
  // 4 micro-batches of compute; and the optimizer step streams the extra parameters through
  // HBM at 1.73437 TB/s, 42 bytes each (OptimizerStep.hpp, the norm below the clip: Adam reads
  // 16 and writes 12, the norm reads the fp32 gradient's 4, the copy back reads 4 and writes 2,
  // the zeroing writes 4).
  const auto compute_of = [](const TrainingSimulation& r) { return r.breakdown.front().seconds; };
  CHECK(compute_of(b) - compute_of(a) == Approx(4 * 3 * gemm * 7 / 8).epsilon(1e-3));
  CHECK(b.optimizer_s - a.optimizer_s == Approx(42 * state / 18 / 1.73436635731636e12).epsilon(1e-3));

  // A degree that does not divide the layers' is refused where it is written.
  const ParallelStrategy three = parse_parallel_strategy(
      head + "overrides:\n  - {part: embedding, tensor_parallel: {degree: 3}}\n", "three.yaml");
  const InputError e = input_error_of([&] { check_strategy_fits(three, m, 8); });
  CHECK(e.message().find("embedding's tensor_parallel.degree 3 does not divide the layers' "
                         "tensor_parallel.degree 8") != std::string::npos);
  CHECK(e.where().line == 10);
  const InputError unknown = input_error_of([&] {
    parse_parallel_strategy(head + "overrides:\n  - {part: head, tensor_parallel: {degree: 1}}\n",
                            "x.yaml");
  });
  CHECK(unknown.message().find("unknown part 'head'") != std::string::npos);
}

TEST_CASE("an oversubscribed network slows the data-parallel all-reduce across its switches",
          "[dist][simulate]") {
  // GPT-22B, TP 8 x DP 4 on 4 Selene nodes: each replica fills a node, so each of the 8 tensor
  // ranks' gradients go round a ring over the NICs of the 4 nodes. Leaf switches of 2 nodes with
  // oversubscription 4 carry 2 x 8 NICs / 4 = 4 NICs' rate each way, shared by the 8 rings that
  // cross them (one flow each): half a NIC each. Every ring step waits for its crossing sends, so
  // the all-reduce takes about twice as long (NCCL's per-hop latency does not grow). The
  // symmetry shortcut (one ring, its switch links shared 8 ways) and a run of every replica agree.
  Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s = parse_parallel_strategy(R"(version: 1
kind: strategy
name: dp4
data_parallel: {degree: 4}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 1}
batch: {global: 16, micro: 1}
recompute: selective
)",
                                                     "dp4.yaml");
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  auto dp_seconds = [](const TrainingSimulation& r) {
    return seconds_of(r, "data-parallel all-reduce");
  };
  const double flat = dp_seconds(simulate_training(m, s, selene, roofline));
  selene.switch_levels = {{2, 4, {}}, {560, 1, {}}};
  const TrainingSimulation tree = simulate_training(m, s, selene, roofline);
  CHECK(dp_seconds(tree) == Approx(2 * flat).epsilon(0.05));
  SimulationOptions every;
  every.exploit_symmetry = false;
  CHECK(simulate_training(m, s, selene, roofline, every).iteration_s ==
        Approx(tree.iteration_s).epsilon(0.001));
  // Non-blocking switches change nothing.
  selene.switch_levels = {{2, 1, {}}, {560, 1, {}}};
  CHECK(dp_seconds(simulate_training(m, s, selene, roofline)) == Approx(flat).epsilon(1e-9));
}

TEST_CASE("recomputing the first layers of every chunk lands between none and full",
          "[dist][simulate]") {
  // GPT-22B on 8 GPUs (TP 8), 48 layers in one chunk. Megatron's block recomputation of all 48
  // layers is full recomputation; of 24, half of the layers recompute: the recomputed time, the
  // hardware FLOPs and the saved activations are exactly halfway between none and full.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  auto run = [&](const std::string& recompute, const std::string& overrides) {
    const ParallelStrategy s = parse_parallel_strategy(
        "version: 1\nkind: strategy\ntensor_parallel: {degree: 8, sequence_parallel: true}\n"
        "batch: {global: 4, micro: 4}\nrecompute: " +
            recompute + "\n" + overrides,
        "s.yaml");
    check_strategy_fits(s, m, 8);
    return simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  };
  const TrainingSimulation none = run("none", "");
  const TrainingSimulation full = run("full", "");
  const TrainingSimulation all48 =
      run("none", "overrides:\n  - {part: layers, count: 48, recompute: full}\n");
  const TrainingSimulation half =
      run("none", "overrides:\n  - {part: layers, count: 24, recompute: full}\n");
  CHECK(all48.iteration_s == Approx(full.iteration_s).epsilon(1e-9));
  CHECK(all48.activation_bytes == Approx(full.activation_bytes).epsilon(1e-9));
  CHECK(full.iteration_s > none.iteration_s * 1.2);
  CHECK(half.stage_backward_s ==
        Approx((none.stage_backward_s + full.stage_backward_s) / 2).epsilon(1e-9));
  CHECK(half.hardware_flops == Approx((none.hardware_flops + full.hardware_flops) / 2));
  CHECK(half.activation_bytes == Approx((none.activation_bytes + full.activation_bytes) / 2));
}

TEST_CASE("a sweep reports each point and stops when told, ranking what it did",
          "[dist][simulate]") {
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy base =
      load_parallel_strategy(sample("/dist/strategies/gpt-22b-seq-sel.yaml"));
  const StrategyGridAxes axes = parse_strategy_grid({"tp=1,2,4,8,16", "pp=1,2,3", "mbs=2,4"});
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  // The same grid as above: 6 valid points, so progress counts 1..6 of 6.
  std::vector<std::pair<size_t, size_t>> calls;
  const std::vector<SweepPoint> all =
      sweep_strategies(m, base, selene, axes, roofline, [&](size_t done, size_t total, auto&) {
        calls.emplace_back(done, total);
        return true;
      });
  REQUIRE(calls.size() == 6);
  for (size_t i = 0; i < calls.size(); ++i) CHECK(calls[i] == std::pair{i + 1, size_t{6}});
  CHECK(all.size() == 6);
  // Stopped after the second point: two points, ranked, each as the full sweep has it.
  std::vector<std::string> simulated;
  const std::vector<SweepPoint> two = sweep_strategies(
      m, base, selene, axes, roofline, [&](size_t done, size_t, const ParallelStrategy& s) {
        simulated.push_back(s.name);
        return done < 2;
      });
  REQUIRE(two.size() == 2);
  CHECK(simulated.size() == 2);
  if (two[0].result.out_of_memory == two[1].result.out_of_memory)
    CHECK(two[0].result.iteration_s <= two[1].result.iteration_s);
  for (const SweepPoint& p : two) {
    CHECK(std::find(simulated.begin(), simulated.end(), p.strategy.name) != simulated.end());
    for (const SweepPoint& q : all)
      if (q.strategy.name == p.strategy.name) CHECK(q.result.iteration_s == p.result.iteration_s);
  }
}
