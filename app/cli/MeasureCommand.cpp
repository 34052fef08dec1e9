// `tilescope measure`: run a suite's operators on a collector, store every measurement with the
// prediction for the same operator and mapping, so that `correlate` can join them.
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <iostream>

#include "BuiltinCollectors.hpp"
#include "Commands.hpp"
#include "TerminalProgress.hpp"
#include "host/HostSuiteCollector.hpp"
#include "mapper/Mapper.hpp"
#include "measure/Collector.hpp"
#include "runner/CuptiRunnerCollector.hpp"

namespace ts::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) { g_stop.store(true); }

// The options of `tilescope measure`; flags that turn a default off are kept as typed.
struct MeasureArgs {
  std::string collector = "host";
  MeasureRequest request;
  bool no_flush = false, no_openblas = false;

  MeasureArgs() {
    request.arch_file = host::kHostGraphFile;
    request.kernel_template_file = runner::kDefaultKernelTemplate;
    request.mapper_budget = MapperOptions{}.budget;
  }
};

// A collector's progress on the terminal: the planning line, then the repetitions bar.
void show_progress(TerminalProgress& progress, const CollectorProgress& p) {
  if (p.total == 0) return progress.clear();
  if (p.stage == CollectorProgress::Stage::planning)
    return progress.show_count(p.done, p.total,
                               fmt::format("predicting {}/{}: {}", p.done, p.total, p.current));
  progress.show_bar(p.done, p.total, fmt::format("repetitions  {}", p.current));
}

int run_measure(const MeasureArgs& args, const std::string& command_line) {
  const Collector& collector = collectors().get(args.collector, "--collector");
  MeasureRequest request = args.request;
  request.flush_caches = !args.no_flush;
  request.openblas = !args.no_openblas;
  request.command_line = command_line;
  request.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;

  TerminalProgress bar("measure");
  CollectorSession session;
  session.print = [](const std::string& line) { std::cout << line << "\n"; };
  session.warn = [&](const std::string& line) {
    bar.clear();
    std::cerr << line << "\n";
  };
  session.progress = [&](const CollectorProgress& p) { show_progress(bar, p); };
  session.cancel = &g_stop;

  // Ctrl-C asks the collector to stop between repetitions; what it measured so far is kept.
  g_stop.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  struct RestoreSignals {
    struct sigaction int_, term_;
    ~RestoreSignals() {
      sigaction(SIGINT, &int_, nullptr);
      sigaction(SIGTERM, &term_, nullptr);
    }
  } restore{old_int, old_term};
  const int status = collector.measure(request, session);
  bar.clear();
  return status;
}

}  // namespace

CommandAction add_measure(CLI::App& app) {
  register_builtin_collectors(collectors());
  auto a = std::make_shared<MeasureArgs>();
  auto* cmd = app.add_subcommand(
      "measure", "run a suite's operators on a collector and store measurements and predictions");
  std::string where = "where to measure:";
  for (const std::string& name : collectors().names())
    where += "\n  " + name + ": " + collectors().find(name)->measures();
  cmd->add_option("--collector", a->collector, where)->capture_default_str();
  cmd->add_option("--workload", a->request.workload_file, "workload suite (YAML)")->required();
  cmd->add_option(
         "--arch", a->request.arch_file,
         "the collector's architecture graph (from calibrate): a file or profile:NAME[/VARIANT]")
      ->capture_default_str();
  cmd->add_option("--db", a->request.db_path, "results database (SQLite), created when missing");
  cmd->add_option("--plan", a->request.plan_file,
                  "cupti: write the plan for tilescope-cupti-runner to this file and stop");
  cmd->add_option("--runner", a->request.runner_path,
                  "cupti: the runner to run (default: tilescope-cupti-runner beside tilescope)");
  cmd->add_option("--mappings", a->request.mappings_dir,
                  "folder of mapping files (each names its operator) for the GEMMs; default: "
                  "the mapper's top 3 and seeded samples of its valid space");
  cmd->add_option("--kernel-template", a->request.kernel_template_file,
                  "cupti: the template the mappings of tilescope's own GEMM kernel are searched "
                  "from: the kernel's schedule ('' for the graph's matmul template)")
      ->capture_default_str();
  cmd->add_option("--mappings-per-gemm", a->request.mappings_per_gemm,
                  "mappings per GEMM when generated (default: host 8, cupti 4)");
  cmd->add_option("--seed", a->request.seed,
                  "seed for drawn mappings, job order and operand values")
      ->capture_default_str();
  cmd->add_option("--save-mappings", a->request.save_mappings_dir,
                  "write the measured mappings to a folder");
  cmd->add_option("--repetitions", a->request.repetitions,
                  "timed repetitions per operator (>= 5; default: host 7, cupti 20)");
  cmd->add_option("--max-repetitions", a->request.max_repetitions,
                  "host: at most this many, while the median is not within --tolerance "
                  "(default 40)");
  cmd->add_option("--tolerance", a->request.tolerance,
                  "host: the 95 % interval of each median aimed at, as a fraction (default 0.05)")
      ->check(CLI::Range(0.001, 1.0));
  cmd->add_option("--threads", a->request.threads, "threads (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--group", a->request.group_size, "operators whose repetitions are interleaved")
      ->capture_default_str();
  cmd->add_option("--budget", a->request.mapper_budget, "mapper evaluations per operator")
      ->capture_default_str();
  cmd->add_flag("--no-flush", a->no_flush, "do not flush the caches before each repetition");
  cmd->add_flag("--no-openblas", a->no_openblas, "skip the OpenBLAS GEMMs");
  return [a] { return run_measure(*a, command_line()); };
}

}  // namespace ts::cli
