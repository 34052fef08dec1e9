// `tilescope sweep`: a workload predicted at every point of a space of architecture parameters,
// each point stored as it finishes so that a rerun resumes; on local threads, or over MPI ranks
// under mpirun (SweepRanks). docs/sweep.md.
#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <set>

#include "Commands.hpp"
#include "SweepRanks.hpp"
#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "measure/ResultStore.hpp"
#include "profile/ArchitectureReference.hpp"
#include "sweep/SweepSummary.hpp"
#include "sweep/SweepThreads.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

struct SweepArgs {
  std::string arch, workload, db;
  std::vector<std::string> vary;
  std::string sample = "cross";
  uint64_t seed = 1;
  uint64_t budget = MapperOptions{}.budget;
  int threads = 0;
  bool summary = false;
};

std::atomic<bool> g_stop{false};
extern "C" void on_sweep_interrupt(int) { g_stop.store(true); }

// Ctrl-C (or SIGTERM) stops handing out points and stops the searches under way; every point
// stored so far stays, and a rerun computes the rest.
class StopOnInterrupt {
 public:
  StopOnInterrupt() {
    g_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_sweep_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopOnInterrupt() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
  }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// TILESCOPE_SWEEP_EXIT_AFTER=0:K (rank 0, or the one process without MPI) exits abruptly, status
// 3, once K points are stored: a crash half way, for the resume tests (docs/sweep.md). Ranks
// other than 0 read it in SweepRanks.
std::optional<size_t> crash_after_stored() {
  const char* v = std::getenv("TILESCOPE_SWEEP_EXIT_AFTER");
  if (!v || std::string_view(v).substr(0, 2) != "0:") return std::nullopt;
  return static_cast<size_t>(std::atoll(v + 2));
}

std::vector<size_t> pending_points(const ArchitectureSweep& sweep, const ResultStore& store) {
  const std::vector<std::string> keys =
      store.sweep_point_keys(sweep.sweep_key(), sweep.workload_hash());
  const std::set<std::string> stored(keys.begin(), keys.end());
  std::vector<size_t> pending;
  for (size_t i = 0; i < sweep.size(); ++i)
    if (!stored.count(sweep.parameters_json(i))) pending.push_back(i);
  return pending;
}

std::string elasticity_text(const std::optional<double>& e) {
  return e ? fmt::format("{:+.3f}", *e) : std::string("-");
}

void print_summary(const ArchitectureSweep& sweep, const ResultStore& store) {
  const std::vector<SweepPointRecord> points =
      store.sweep_points(sweep.sweep_key(), sweep.workload_hash());
  // Only the points of this sweep's space: the store may hold other values of the same paths.
  std::set<std::string> ours;
  for (size_t i = 0; i < sweep.size(); ++i) ours.insert(sweep.parameters_json(i));
  std::vector<SweepPointRecord> mine;
  for (const SweepPointRecord& p : points)
    if (ours.count(p.parameters_json)) mine.push_back(p);
  std::vector<std::string> paths;
  for (const SweepAxis& a : sweep.axes()) paths.push_back(a.path);

  std::cout << fmt::format(
      "\nsensitivity (d ln time / d ln parameter, least squares over {} points; -1: time halves "
      "when the parameter doubles)\n",
      mine.size());
  size_t name_w = 8;
  for (const Operator& op : sweep.workload().operators) name_w = std::max(name_w, op.name.size());
  std::string header = fmt::format("{:<{}}", "subject", name_w);
  for (const std::string& p : paths)
    header += fmt::format("  {:>{}}", p, std::max<size_t>(p.size(), 8));
  std::cout << header << "\n";
  for (const SweepSensitivity& row : sweep_sensitivities(paths, mine)) {
    std::string line = fmt::format("{:<{}}", row.subject, name_w);
    for (size_t k = 0; k < paths.size(); ++k)
      line += fmt::format("  {:>{}}", elasticity_text(row.elasticity[k]),
                          std::max<size_t>(paths[k].size(), 8));
    std::cout << line << "\n";
  }
  const std::vector<SweepPointRecord> front = pareto_front(mine);
  std::cout << fmt::format(
      "\nPareto front, suite time against cost (memory bytes: capacity x instances summed over "
      "memories), {} of {} points\n",
      front.size(), mine.size());
  // Bytes to the byte: a capacity step of a small memory is lost in a rounded figure of the whole.
  std::cout << fmt::format("{:>14}  {:>16}  {}\n", "total_us", "cost_bytes", "parameters");
  for (const SweepPointRecord& p : front) {
    const std::vector<double> values = sweep_parameter_values(p, paths);
    std::string parameters;
    for (size_t k = 0; k < paths.size(); ++k)
      parameters += fmt::format("{}{}={}", k ? " " : "", paths[k],
                                format_parameter(sweep.axes()[k].resolved.field, values[k]));
    std::cout << fmt::format("{:>14.3f}  {:>16.0f}  {}\n", p.total_s * 1e6, p.cost, parameters);
  }
}

int run_sweep(const SweepArgs& a) {
  ArchitectureGraph graph = load_architecture(resolve_architecture_option(a.arch));
  Workload workload = load_workload(a.workload);
  if (a.vary.empty())
    throw InputError(SourceLocation{"--vary", 0, 0},
                     "a sweep needs at least one --vary PATH=V1,V2,...");
  std::vector<SweepAxis> axes;
  for (const std::string& v : a.vary) axes.push_back(parse_sweep_axis(v, graph));
  const SweepSampling sampling = parse_sweep_sampling(a.sample, a.seed);
  std::vector<SweepValues> points = sweep_points(axes, sampling);
  MapperOptions mapper;
  mapper.budget = a.budget;
  // The points are the parallel work: each is searched on one thread (the mapper finds the same
  // mapping whatever its thread count, so the results do not depend on this).
  mapper.parallel = false;
  const ArchitectureSweep sweep(std::move(graph), std::move(workload), std::move(axes),
                                std::move(points), mapper);

  const std::optional<int> ranks = launched_ranks();
  if (ranks && *ranks > 1 && !have_mpi())
    throw InputError(SourceLocation{"mpirun", 0, 0},
                     fmt::format("started as {} ranks, but this tilescope was built without MPI; "
                                 "run it as one process (it uses local threads)",
                                 *ranks));
  StopOnInterrupt stop;
  TerminalProgress progress("sweep");
  size_t computed = 0, total_pending = 0, already = 0;
  std::optional<ResultStore> store;
  const std::optional<size_t> crash_after = crash_after_stored();
  const auto finished = [&](const SweepPointRecord& point) {
    store->add_sweep_point(point);
    ++computed;
    progress.show_bar(computed, total_pending, "sweep points");
    if (crash_after && computed >= *crash_after) std::_Exit(3);
  };
  const auto open_and_list = [&] {
    store.emplace(a.db);
    std::vector<size_t> pending = pending_points(sweep, *store);
    total_pending = pending.size();
    already = sweep.size() - pending.size();
    return pending;
  };

  if (ranks && *ranks > 1) {
    const int rank = run_sweep_on_ranks(sweep, {open_and_list, finished}, &g_stop);
    if (rank != 0) return 0;
  } else {
    evaluate_sweep_points(sweep, open_and_list(), a.threads, &g_stop, finished);
  }
  progress.clear();
  const bool stopped = g_stop.load();
  std::cout << fmt::format("sweep of {} on {}: {} points, {} already in {}, {} computed{}\n",
                           sweep.workload().name, resolve_architecture_option(a.arch), sweep.size(),
                           already, a.db, computed,
                           stopped ? " (stopped: rerun to compute the rest)" : "");
  if (a.summary && !stopped) print_summary(sweep, *store);
  return stopped ? 130 : 0;
}

}  // namespace

CommandAction add_sweep(CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Predict a workload over a space of architecture parameters (threads or MPI)");
  cmd->add_option("--arch", args->arch,
                  "architecture graph: a kind: architecture file, or profile:NAME[/VARIANT]")
      ->required();
  cmd->add_option("--workload", args->workload, "workload suite (kind: workload)")->required();
  cmd->add_option("--vary", args->vary,
                  "PATH=V1,V2,... a graph parameter and its values (repeatable), e.g. "
                  "node:L1.capacity=256KiB,512KiB,1MiB")
      ->required();
  cmd->add_option("--db", args->db, "results database the points are stored in (resumable)")
      ->required();
  cmd->add_option("--sample", args->sample,
                  "cross (every combination, the default), lhs:N (Latin hypercube over each "
                  "parameter's min..max) or random:N");
  cmd->add_option("--seed", args->seed, "seed of lhs and random sampling");
  cmd->add_option("--budget", args->budget, "mapper evaluations per operator")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--threads", args->threads,
                  "points evaluated at once in this process (default: every core); under "
                  "mpirun each rank computes one point at a time")
      ->check(CLI::Range(0, 4096));
  cmd->add_flag("--summary", args->summary,
                "print the sensitivities and the Pareto front of the sweep's points");
  return [args] { return run_sweep(*args); };
}

}  // namespace ts::cli
