// `tilescope bench model`: mapping evaluations per second on one thread, the wall time of
// auto-mapping a suite, and the mapper's gap to the exhaustive optimum on a small problem;
// `bench simulate` and `bench sweep` time training simulations and sweeps, `bench threads` the
// commands that predict many operators on one thread and on all (ThreadsBench).
#include "BenchCommand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <limits>
#include <tuple>

#include "BenchFolder.hpp"
#include "BenchPlan.hpp"
#include "ImportBench.hpp"
#include "SweepRanks.hpp"
#include "TerminalProgress.hpp"
#include "ThreadsBench.hpp"
#include "analysis/AnalysisResult.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/DataDirectory.hpp"
#include "common/WorkThreads.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "report/WorkloadPrediction.hpp"
#include "tile/MappingLoader.hpp"
#include "training/Cluster.hpp"
#include "training/TrainingSimulation.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

using Clock = std::chrono::steady_clock;

// A cost hook as cheap as a plugin's should be: the graph's own figure, recomputed.
double steady_rate_hook(const TilescopeComputeTile* call, const void*) {
  return call->ops / call->ops_per_cycle / call->clock_hz;
}

int run_model(const BenchOptions& a) {
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
    const AnalysisResult result = analyse(program);
    throw_if_invalid(program, result);
    std::cout << fmt::format("bench mapping: {} for {} ({}) on {}: {:.3f} us\n", mapping.name,
                             op->name, op->shape_text(), graph.name, result.device_s * 1e6);
  }
  const Workload bert = load_workload(a.root + "/samples/workloads/bert-large.yaml");
  const OperatorPredictionOptions suite_options;
  const uint64_t budget = suite_options.mapper.budget;
  // The gap's small problem: the largest of a few whose whole space can be enumerated in
  // seconds, to see how far the default budget lands from the optimum. Found before anything is
  // timed, so that the plan can count its points.
  constexpr double kEnumerable = 6e7;
  Operator small;
  MappingProgram t;
  double space = 0;
  if (a.wants("gap")) {
    for (auto [m, n, k] :
         {std::tuple{384, 640, 512}, std::tuple{256, 384, 256}, std::tuple{256, 256, 256},
          std::tuple{128, 256, 128}, std::tuple{128, 128, 128}, std::tuple{64, 64, 64},
          std::tuple{64, 32, 32}, std::tuple{32, 32, 32}, std::tuple{16, 32, 16},
          std::tuple{16, 16, 16}}) {
      small = make_gemm("gap_gemm", m, n, k);
      t = compile_mapping(buffer_choices(default_template(small, graph)).front(), small, graph,
                          true);
      MapperOptions probe;
      probe.budget = 1;
      space = search_mapping(t, probe).space_size;
      if (space <= kEnumerable) break;
    }
  }
  // What the parts will do, counted before any of them runs: seconds timed, and mapper
  // evaluations (a search makes at most its budget, an exhaustive one every point).
  BenchPlan plan("bench model");
  if (a.wants("rate"))
    plan.add(fmt::format("the evaluation rate ({} x {:g} s, with and without a cost hook)",
                         a.repetitions, a.seconds),
             2.0 * a.repetitions * a.seconds, 0);
  if (a.wants("suite"))
    plan.add(fmt::format("{} x auto-mapping {} ({} operators)", a.repetitions, bert.name,
                         bert.operators.size()),
             0,
             static_cast<double>(a.repetitions) * static_cast<double>(bert.operators.size()) *
                 static_cast<double>(budget));
  if (a.wants("gap")) {
    const bool enumerable = space <= kEnumerable;
    plan.add(enumerable ? fmt::format("the mapper against an exhaustive search of {:.3g} points "
                                      "and against a 20x budget",
                                      space)
                        : std::string("the mapper against a 20x budget"),
             0,
             (enumerable ? space + static_cast<double>(budget) : 0) +
                 21.0 * static_cast<double>(budget));
  }
  plan.measure(program);
  std::cout << plan.line() << std::flush;

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
    double best = 1e300;
    TerminalProgress progress("bench model");
    const size_t total = bert.operators.size() * static_cast<size_t>(a.repetitions);
    for (int r = 0; r < a.repetitions; ++r) {
      const size_t before = bert.operators.size() * static_cast<size_t>(r);
      const auto start = Clock::now();
      // As `predict` maps a suite: its operators over every core (predict_workload).
      predict_workload(bert, graph, suite_options, [&](size_t done, size_t, const Operator& next) {
        progress.show_bar(before + done, total, fmt::format("auto-mapping {}", next.name));
      });
      best = std::min(best, std::chrono::duration<double>(Clock::now() - start).count());
    }
    progress.clear();
    std::cout << fmt::format(
        "auto-mapped {} ({} operators) on {} in {:.3f} s on {} threads (budget {} per operator, "
        "best of {})\n",
        bert.name, bert.operators.size(), graph.name, best, available_threads(), budget,
        a.repetitions);
  }
  if (a.wants("gap")) {
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
    MappingProgram rt =
        compile_mapping(buffer_choices(default_template(*op, graph)).front(), *op, graph, true);
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
int run_simulate_bench(const BenchOptions& a) {
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

// `tilescope bench sweep`: one sweep (BERT-large on the Ascend graph, 400 points at a small mapper
// budget) into fresh databases, as 1 rank, 2 ranks (mpirun, each rank computing on one thread)
// and one process on 2 threads, the best of the repetitions of each. 400 points (about 3 s on
// one rank) so that what every run pays once (starting the processes, MPI_Init) does not pass for
// the scaling of the points. The CPU time of the children shows whether a waiting rank spins:
// at most about 2 CPU-seconds per wall-second on 2 ranks when it does not.
int run_sweep_bench(const BenchOptions& a) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const BenchFolder folder("sweep");
  std::vector<std::string> l1, cubes;
  for (int k = 1; k <= 20; ++k) {
    l1.push_back(fmt::format("{}KiB", 64 * k));
    cubes.push_back(std::to_string(2 * k));
  }
  const std::string sweep = fmt::format(
      "sweep --arch '{0}/samples/arch/ascend910b3.yaml' --workload "
      "'{0}/samples/workloads/bert-large.yaml' --budget 32 --vary node:L1.capacity={1} --vary "
      "node:Cube.instances={2}",
      a.root, fmt::join(l1, ","), fmt::join(cubes, ","));
  const double points = static_cast<double>(l1.size() * cubes.size());
  // OpenMPI refuses to start as root without the first two (containers, CI). The ranks share one
  // machine, so its shared-memory transport is all they need: probing for InfiniBand (UCX) would
  // add a quarter of a second to every start.
  const std::string mpirun =
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 "
      "OMPI_MCA_btl=self,vader mpirun --oversubscribe";
  struct Timing {
    double wall_s = std::numeric_limits<double>::infinity(), cpu_s = 0;
  };
  int run = 0;
  const auto timed_once = [&](const std::string& launcher, const std::string& options) {
    const std::string command =
        fmt::format("{} '{}' {} --db '{}' {} > /dev/null", launcher, self, sweep,
                    (folder / fmt::format("run{}.sqlite", run++)).string(), options);
    rusage before{}, after{};
    ::getrusage(RUSAGE_CHILDREN, &before);
    const auto start = Clock::now();
    const int status = std::system(command.c_str());
    Timing t;
    t.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
    ::getrusage(RUSAGE_CHILDREN, &after);
    const auto seconds = [](const timeval& v) { return v.tv_sec + v.tv_usec * 1e-6; };
    t.cpu_s = seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) -
              seconds(before.ru_stime);
    if (status != 0) throw std::runtime_error("the bench sweep failed: " + command);
    return t;
  };
  std::cout << fmt::format(
      "sweep: bert-large on ascend910b3, {:.0f} points, mapper budget 32, best of {}\n", points,
      a.repetitions);
  // The three ways take turns within each repetition, so that a burst of load on a shared machine
  // slows one repetition of each rather than every repetition of one.
  const bool ranks = have_mpi();
  Timing threads, one, two;
  const auto keep_best = [](Timing& best, const Timing& t) {
    if (t.wall_s < best.wall_s) best = t;
  };
  for (int r = 0; r < a.repetitions; ++r) {
    keep_best(threads, timed_once("", "--threads 2"));
    if (!ranks) continue;
    keep_best(one, timed_once(mpirun + " -n 1", "--threads 1"));
    keep_best(two, timed_once(mpirun + " -n 2", ""));
  }
  const auto report = [&](const std::string& what, const Timing& t, int ways) {
    std::cout << fmt::format(
        "{:<22} {:7.2f} s wall, {:7.2f} s cpu, {:6.1f} points/s, {:6.1f} points/s per {}\n", what,
        t.wall_s, t.cpu_s, points / t.wall_s, points / t.wall_s / ways,
        what.find("thread") != std::string::npos ? "thread" : "rank");
  };
  if (!ranks) {
    report("1 process, 2 threads", threads, 2);
    std::cout << "this tilescope was built without MPI: no ranks to measure\n";
    return 0;
  }
  report("1 rank", one, 1);
  report("2 ranks", two, 2);
  report("1 process, 2 threads", threads, 2);
  std::cout << fmt::format("speed-up: {:.2f}x (2 ranks over 1)\n", one.wall_s / two.wall_s);
  return 0;
}

}  // namespace

int run_bench(BenchOptions a) {
  if (a.what == "import") return run_import_bench(static_cast<uint64_t>(a.import_gb * 1e9));
  if (a.root.empty()) a.root = required_data_directory().string();
  if (a.what == "sweep") return run_sweep_bench(a);
  if (a.what == "threads") return run_threads_bench(a.root, a.repetitions);
  return a.what == "simulate" ? run_simulate_bench(a) : run_model(a);
}

}  // namespace ts::cli
