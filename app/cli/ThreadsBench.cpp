#include "ThreadsBench.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <vector>

#include "BenchFolder.hpp"
#include "BenchPlan.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/WorkThreads.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/CsvMeasurements.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

// One command of the bench: its arguments after `tilescope`, and how many operator predictions
// it makes (each at most `budget` mapper evaluations).
struct ThreadsCase {
  std::string name, what, arguments;
  double predictions = 0;
  uint64_t budget = 0;
  double one_s = std::numeric_limits<double>::infinity();  // best wall time, --threads 1
  double all_s = std::numeric_limits<double>::infinity();  // best wall time, the default
};

// Ctrl-C reached the child (the terminal sends it to the whole group): the bench stops.
struct BenchInterrupted {};

double load_average() {
  double load[1] = {0};
  return ::getloadavg(load, 1) == 1 ? load[0] : 0.0;
}

}  // namespace

int run_threads_bench(const std::string& root, int repetitions) {
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  const std::string arch = root + "/samples/arch/";
  const std::string bert = root + "/samples/workloads/bert-large.yaml";
  const std::string table = root + "/samples/measurements/ascend910b3_gemm_calibration.csv";
  const size_t operators = load_workload(bert).operators.size();
  const size_t rows = read_shape_measurements(table, "gemm", DataType::fp16).size();
  // Budgets that keep each command at seconds on one thread; compare's three graphs and
  // correlate's hundreds of rows are the many-operator case the threads are for.
  constexpr uint64_t kPredictBudget = 200000, kCompareBudget = 50000, kCorrelateBudget = 2000;
  std::vector<ThreadsCase> cases{
      {"predict", fmt::format("bert-large on nvidia-h100, {} operators", operators),
       fmt::format("predict --arch '{0}nvidia-h100.yaml' --workload '{1}' --budget {2}", arch, bert,
                   kPredictBudget),
       static_cast<double>(operators), kPredictBudget},
      {"compare", fmt::format("bert-large on 3 graphs, {} predictions", 3 * operators),
       fmt::format("compare --arch '{0}nvidia-h100.yaml' --arch '{0}nvidia-h200.yaml' --arch "
                   "'{0}ascend910b3.yaml' --workload '{1}' --budget {2}",
                   arch, bert, kCompareBudget),
       3.0 * static_cast<double>(operators), kCompareBudget},
      {"correlate", fmt::format("{} GEMM rows on ascend910b3", rows),
       fmt::format("correlate --csv '{0}' --op gemm --arch '{1}ascend910b3.yaml' --budget {2}",
                   table, arch, kCorrelateBudget),
       static_cast<double>(rows), kCorrelateBudget},
  };

  const int threads = available_threads();
  BenchPlan plan("bench threads");
  for (const ThreadsCase& c : cases) {
    const double evaluations = c.predictions * static_cast<double>(c.budget) * repetitions;
    plan.add(fmt::format("{} x {} ({}, budget {})", repetitions, c.name, c.what, c.budget), 0,
             evaluations, evaluations);
  }
  // The bench mapping, whose evaluation rates on one thread and on all the plan measures (the
  // program points into the graph and the operator, which stay).
  const std::string mapping_path = root + "/samples/mappings/bench-ascend-gemm.yaml";
  const ArchitectureGraph graph = load_architecture(arch + "ascend910b3.yaml");
  const Mapping mapping = load_mapping(mapping_path);
  const Workload vit = load_workload(root + "/samples/workloads/vit-b16.yaml");
  const Operator* op = nullptr;
  for (const Operator& o : vit.operators)
    if (o.name == mapping.op_name) op = &o;
  if (!op) throw std::runtime_error("the bench mapping names no operator of vit-b16");
  const MappingProgram probe = compile_mapping(mapping, *op, graph, false);
  plan.measure(probe);
  const double ceiling_before = plan.ceiling();
  std::cout << plan.line()
            << fmt::format(
                   "each with --threads 1 and with the default ({} threads here), the best "
                   "of {}; load average {:.2f} before\n",
                   threads, repetitions, load_average())
            << std::flush;

  const BenchFolder folder("threads");
  const std::filesystem::path errors = folder / "stderr.txt";
  const auto timed_once = [&](const ThreadsCase& c, const std::string& more) {
    // No progress lines: the bench times the work, not the terminal.
    const std::string command =
        fmt::format("TILESCOPE_PROGRESS_INTERVAL=0 '{}' {} {} > /dev/null 2> '{}'", self,
                    c.arguments, more, errors.string());
    const auto start = std::chrono::steady_clock::now();
    const int status = std::system(command.c_str());
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) throw BenchInterrupted{};
    if (status != 0) {
      std::ifstream in(errors);
      std::string line, last;
      while (std::getline(in, line))
        if (!line.empty()) last = line;
      throw std::runtime_error(fmt::format("the bench command failed: {}\n{}", command, last));
    }
    return wall_s;
  };
  try {
    // The two ways take turns within each repetition, so that a burst of load on a shared
    // machine slows one run of each rather than every run of one.
    for (int r = 0; r < repetitions; ++r)
      for (ThreadsCase& c : cases) {
        c.one_s = std::min(c.one_s, timed_once(c, "--threads 1"));
        c.all_s = std::min(c.all_s, timed_once(c, ""));
      }
  } catch (const BenchInterrupted&) {
    std::cout << "bench threads: stopped (Ctrl-C)\n";
    return 130;
  }
  size_t name_w = 0, what_w = 0;
  for (const ThreadsCase& c : cases) {
    name_w = std::max(name_w, c.name.size());
    what_w = std::max(what_w, c.what.size());
  }
  for (const ThreadsCase& c : cases)
    std::cout << fmt::format(
        "{:<{}}  {:<{}}  1 thread {:7.2f} s  {} threads {:7.2f} s  speed-up {:.2f}x\n", c.name,
        name_w, c.what, what_w, c.one_s, threads, c.all_s, c.one_s / c.all_s);
  std::string ratios;
  for (const ThreadsCase& c : cases)
    ratios += fmt::format("{}{} {:.2f}x", ratios.empty() ? "" : ", ", c.name, c.one_s / c.all_s);
  std::cout << fmt::format("speed-up of {} threads over 1: {} (load average {:.2f} after)\n",
                           threads, ratios, load_average());
  // What the machine itself gave just before and after: independent evaluation loops on every
  // thread against one. On a machine shared with other work this is below the thread count, and
  // no command's speed-up can be above it.
  plan.measure(probe);
  std::cout << fmt::format(
      "this machine's own ceiling: {} independent evaluation loops at once ran {:.2f}x as fast as "
      "one before the runs, {:.2f}x after\n",
      threads, ceiling_before, plan.ceiling());
  return 0;
}

}  // namespace ts::cli
