// `tilescope bench model`: mapping evaluations per second on one thread, the wall time of
// auto-mapping a suite, and the mapper's gap to the exhaustive optimum on a small problem.
#include <fmt/format.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <tuple>

#include "Commands.hpp"
#include "ImportBench.hpp"
#include "TerminalProgress.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/DataDirectory.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "training/Cluster.hpp"
#include "training/TrainingSimulation.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct BenchArgs {
  std::string what = "model";
  std::string root;  // empty: the data folder (common/DataDirectory)
  double seconds = 1.0;
  int repetitions = 3;
  std::vector<std::string> parts{"rate", "suite", "gap"};
  double import_gb = 1.0;  // `bench import`: GB (1e9 bytes) of Kineto JSON to generate
  bool wants(const std::string& part) const {
    return std::find(parts.begin(), parts.end(), part) != parts.end();
  }
};

double evaluations_per_second(const MappingProgram& program, double seconds, int repetitions) {
  Evaluation eval;
  prepare(program, eval);
  double best = 0;
  for (int r = 0; r < repetitions; ++r) {
    uint64_t n = 0;
    double sink = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
      for (int i = 0; i < 1000; ++i) sink += evaluate(program, eval);
      n += 1000;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    if (!(sink > 0)) throw std::runtime_error("the bench mapping does not evaluate");
    best = std::max(best, static_cast<double>(n) / elapsed);
  }
  return best;
}

// A cost hook as cheap as a plugin's should be: the graph's own figure, recomputed.
double steady_rate_hook(const TilescopeComputeTile* call, const void*) {
  return call->ops / call->ops_per_cycle / call->clock_hz;
}

int run_model(const BenchArgs& a) {
  const std::string arch_path = a.root + "/samples/arch/ascend910b3.yaml";
  const std::string mapping_path = a.root + "/samples/mappings/bench-ascend-gemm.yaml";
  const std::string suite_path = a.root + "/samples/workloads/vit-b16.yaml";
  ArchitectureGraph graph = load_architecture(arch_path);
  Mapping mapping = load_mapping(mapping_path);
  Workload suite = load_workload(suite_path);
  const Operator* op = nullptr;
  for (const auto& o : suite.operators)
    if (o.name == mapping.op_name) op = &o;
  if (!op)
    throw InputError(SourceLocation{mapping_path, 1, 1},
                     "bench mapping names no operator of " + suite_path);
  MappingProgram program = compile_mapping(mapping, *op, graph, false);
  {
    Evaluation eval;
    evaluate(program, eval);
    throw_if_invalid(program, eval);
    std::cout << fmt::format("bench mapping: {} for {} ({}) on {}: {:.3f} us\n", mapping.name,
                             op->name, op->shape_text(), graph.name, eval.device_s * 1e6);
  }
  if (a.wants("rate")) {
    tbb::global_control one_thread(tbb::global_control::max_allowed_parallelism, 1);
    const double rate = evaluations_per_second(program, a.seconds, a.repetitions);
    std::cout << fmt::format("{:.0f} evaluations/s (one thread, best of {} x {:g} s)\n", rate,
                             a.repetitions, a.seconds);
    // The same with a code plugin's cost hook on every compute unit (arch/ComputeCostHook.h):
    // what a hook costs the evaluation loop, beside the rate without in the same run.
    ArchitectureGraph hooked = graph;
    for (ArchNode& n : hooked.nodes)
      if (n.kind == NodeKind::compute) n.cost_hook_seconds = &steady_rate_hook;
    const MappingProgram hooked_program = compile_mapping(mapping, *op, hooked, false);
    const double hooked_rate = evaluations_per_second(hooked_program, a.seconds, a.repetitions);
    std::cout << fmt::format(
        "{:.0f} evaluations/s with a cost hook on every compute unit ({:.2f} of the rate "
        "without)\n",
        hooked_rate, hooked_rate / rate);
  }
  if (a.wants("suite")) {
    Workload bert = load_workload(a.root + "/samples/workloads/bert-large.yaml");
    OperatorPredictionOptions options;
    double best = 1e300;
    TerminalProgress progress("bench model");
    const size_t total = bert.operators.size() * static_cast<size_t>(a.repetitions);
    size_t done = 0;
    for (int r = 0; r < a.repetitions; ++r) {
      const auto start = Clock::now();
      for (const auto& o : bert.operators) {
        progress.show_bar(done++, total, fmt::format("auto-mapping {}", o.name));
        predict_operator(o, graph, options);
      }
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    progress.clear();
    std::cout << fmt::format(
        "auto-mapped {} ({} operators) on {} in {:.3f} s (budget {} per operator, best of {})\n",
        bert.name, bert.operators.size(), graph.name, best, options.mapper.budget, a.repetitions);
  }
  if (a.wants("gap")) {
    // The largest of a few problems whose whole space can be enumerated in seconds, to see how
    // far the default budget lands from the optimum.
    constexpr double kEnumerable = 6e7;
    Operator small;
    MappingProgram t;
    double space = 0;
    for (auto [m, n, k] :
         {std::tuple{384, 640, 512}, std::tuple{256, 384, 256}, std::tuple{256, 256, 256},
          std::tuple{128, 256, 128}, std::tuple{128, 128, 128}, std::tuple{64, 64, 64},
          std::tuple{64, 32, 32}, std::tuple{32, 32, 32}, std::tuple{16, 32, 16},
          std::tuple{16, 16, 16}}) {
      small = make_gemm("gap_gemm", m, n, k);
      t = compile_mapping(default_template(small, graph), small, graph, true);
      MapperOptions probe;
      probe.budget = 1;
      space = search_mapping(t, probe).space_size;
      if (space <= kEnumerable) break;
    }
    MapperOptions normal;
    if (space > kEnumerable) {
      // A template with many free levels has no small problem whose space can be enumerated.
      std::cout << fmt::format(
          "mapper gap: not measured, the smallest problem ({}) has {:.3g} "
          "mappings, more than the {:.0e} that can be enumerated\n",
          small.shape_text(), space, kEnumerable);
    } else {
      MapperResult found = search_mapping(t, normal);
      MapperOptions all;
      all.budget = static_cast<uint64_t>(found.space_size) + 1;
      MapperResult optimum = search_mapping(t, all);
      const double gap = optimum.device_s > 0 ? (found.device_s / optimum.device_s - 1.0) : 0.0;
      std::cout << fmt::format(
          "mapper gap on {} ({}): {:.2f} % ({:.3f} us with {} evaluations vs exhaustive "
          "{:.3f} us over {:.0f} points)\n",
          small.name, small.shape_text(), gap * 100.0, found.device_s * 1e6, found.evaluations,
          optimum.device_s * 1e6, optimum.space_size);
    }
    // On a real problem whose space (billions of points) cannot be enumerated: how much a twenty
    // times larger budget still finds.
    MappingProgram rt = compile_mapping(default_template(*op, graph), *op, graph, true);
    MapperResult usual = search_mapping(rt, normal);
    MapperOptions more;
    more.budget = normal.budget * 20;
    MapperResult longer = search_mapping(rt, more);
    std::cout << fmt::format(
        "mapper on {} ({}): {:.3f} us at the default budget, {:.3f} us at 20x ({:+.2f} %) in a "
        "{:.3g}-point space\n",
        op->name, op->shape_text(), usual.device_s * 1e6, longer.device_s * 1e6,
        (usual.device_s / longer.device_s - 1.0) * 100.0, usual.space_size);
  }
  return 0;
}

// Wall time of whole training simulations at the sizes issue 5 names: GPT-3 175B on 1024 GPUs
// (TP 8, PP 8, DP 16, 1F1B, 64 micro-batches per pipeline) and the 1T model on 3072 GPUs.
int run_simulate_bench(const BenchArgs& a) {
  const std::string dist = a.root + "/samples/dist/";
  const Cluster selene = load_cluster(dist + "clusters/selene.yaml");
  struct Case {
    const char* model;
    const char* strategy;
    int64_t dp;
  };
  for (const Case& c :
       {Case{"gpt3-175b", "gpt3-175b-full", 16}, Case{"gpt-1t", "gpt-1t-full", 6}}) {
    const TransformerModel model = load_transformer_model(dist + "models/" + c.model + ".yaml");
    ParallelStrategy s = load_parallel_strategy(dist + "strategies/" + c.strategy + ".yaml");
    s.dp.value = c.dp;
    s.schedule.value = PipelineSchedule::one_f_one_b;
    s.chunks.value = 1;
    s.global_batch.value = 64 * s.micro_batch.value * c.dp;
    double best = 1e300, iteration = 0;
    for (int r = 0; r < a.repetitions; ++r) {
      const auto start = Clock::now();
      iteration = simulate_training(model, s, selene).iteration_s;
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    std::cout << fmt::format(
        "{} on {} GPUs (TP {} x PP {} x DP {}, 1F1B, 64 micro-batches): simulated in {:.3f} s "
        "(best of {}); iteration {:.2f} s\n",
        model.name, s.gpus(), s.tp.value, s.pp.value, s.dp.value, best, a.repetitions, iteration);
  }
  return 0;
}

}  // namespace

CommandAction add_bench(CLI::App& app) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* cmd = app.add_subcommand("bench", "Benchmarks that print their figures");
  cmd->add_option("what", args->what,
                  "what to benchmark: model (the analysis and the mapper) or "
                  "simulate (training simulations) or import (a generated Kineto trace)")
      ->check(CLI::IsMember({"model", "simulate", "import"}));
  cmd->add_option("--gb", args->import_gb, "import: GB of trace JSON to generate")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--root", args->root,
                  "folder holding samples/ (default: tilescope's data folder)");
  cmd->add_option("--seconds", args->seconds, "seconds per repetition")->check(CLI::PositiveNumber);
  cmd->add_option("--repetitions", args->repetitions, "repetitions (the best is kept)")
      ->check(CLI::PositiveNumber);
  cmd->add_option(
         "--part", args->parts,
         "which figures: rate (evaluations/s), suite (auto-mapping time), gap (mapper vs optimum)")
      ->check(CLI::IsMember({"rate", "suite", "gap"}));
  return [args] {
    if (args->what == "import")
      return run_import_bench(static_cast<uint64_t>(args->import_gb * 1e9));
    if (args->root.empty()) args->root = required_data_directory().string();
    return args->what == "simulate" ? run_simulate_bench(*args) : run_model(*args);
  };
}

}  // namespace ts::cli
