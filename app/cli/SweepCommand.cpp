// `tilescope sweep`: a workload predicted at every point of a space of architecture parameters,
// or (--strategy-grid) a training job simulated at every point of a grid of strategies; each
// point stored as it finishes so that a rerun resumes; on local threads, or over MPI ranks under
// mpirun (SweepRanks). docs/sweep.md.
#include "SweepCommand.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "OptionValues.hpp"
#include "StopOnInterrupt.hpp"
#include "SweepRanks.hpp"
#include "SweepSummaryText.hpp"
#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "common/InputError.hpp"
#include "measure/ResultStore.hpp"
#include "profile/ArchitectureReference.hpp"
#include "sweep/ArchitectureSweep.hpp"
#include "sweep/StrategyGrid.hpp"
#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepExchange.hpp"
#include "sweep/SweepResume.hpp"
#include "sweep/SweepSummary.hpp"
#include "sweep/SweepThreads.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

// TILESCOPE_SWEEP_EXIT_AFTER=0:K (rank 0, or the one process without MPI) exits abruptly, status
// 3, once K points are stored: a crash half way, for the resume tests (docs/sweep.md). Ranks
// other than 0 read it in SweepRanks.
std::optional<size_t> crash_after_stored() {
  const char* v = std::getenv("TILESCOPE_SWEEP_EXIT_AFTER");
  if (!v || std::string_view(v).substr(0, 2) != "0:") return std::nullopt;
  return static_cast<size_t>(std::atoll(v + 2));
}

struct PointsRun {
  std::optional<ResultStore> store;
  size_t already = 0, computed = 0;
  bool stopped = false;
};

// The pending points of `sweep` computed over MPI ranks (under mpirun) or local threads, each
// stored as it finishes. nullopt on ranks other than 0, which have nothing to report.
std::optional<PointsRun> run_points(const SweepSpace& sweep, const SweepOptions& a) {
  const std::optional<int> ranks = launched_ranks();
  if (ranks && *ranks > 1 && !have_mpi())
    throw InputError(SourceLocation{"mpirun", 0, 0},
                     fmt::format("started as {} ranks, but this tilescope was built without MPI; "
                                 "run it as one process (it uses local threads)",
                                 *ranks));
  StopOnInterrupt stop;
  TerminalProgress progress("sweep");
  PointsRun run;
  size_t total_pending = 0;
  const std::optional<size_t> crash_after = crash_after_stored();
  const auto finished = [&](const SweepPointRecord& point) {
    run.store->add_sweep_point(point);
    ++run.computed;
    progress.show_bar(run.computed, total_pending, "sweep points");
    if (crash_after && run.computed >= *crash_after) std::_Exit(3);
  };
  const auto open_and_list = [&] {
    run.store.emplace(a.db);
    std::vector<size_t> pending = pending_points(sweep, *run.store);
    total_pending = pending.size();
    run.already = sweep.size() - pending.size();
    return pending;
  };
  if (ranks && *ranks > 1) {
    if (run_sweep_on_ranks(sweep, {open_and_list, finished}, &StopOnInterrupt::flag()) != 0)
      return std::nullopt;
  } else {
    evaluate_sweep_points(sweep, open_and_list(), a.threads, &StopOnInterrupt::flag(), finished);
  }
  progress.clear();
  run.stopped = StopOnInterrupt::requested();
  return run;
}

std::string counts_text(const SweepSpace& sweep, const PointsRun& run, const std::string& db) {
  return fmt::format("{} points, {} already in {}, {} computed{}", sweep.size(), run.already, db,
                     run.computed, run.stopped ? " (stopped: rerun to compute the rest)" : "");
}

// What the sweep warns of, on stderr as it is found (whatever the format) and in the JSON.
struct SweepWarnings {
  std::vector<std::string> lines;
  void add(const std::string& line) {
    if (line.empty()) return;
    std::cerr << line << "\n";
    lines.push_back(line);
  }
};

// After the points: axes along which the total never moves, or stops moving, each said once,
// unless a cap said it already before the points ran (docs/sweep.md, "Axes that do nothing").
void warn_plateaus(SweepWarnings& warnings, const std::string& flag, const std::string& subject,
                   const std::vector<std::string>& paths,
                   const std::vector<SweepPointRecord>& points,
                   const std::vector<SweepAxisCap>& caps = {},
                   const std::vector<SweepAxis>& axes = {}) {
  std::set<std::string> said;
  for (const SweepAxisPlateau& p : sweep_axis_plateaus(paths, points)) {
    bool explained = false;
    for (const SweepAxisCap& c : caps)
      explained =
          explained || (c.path == p.path && plateau_explained_by(p, c, axes[c.axis].values));
    if (explained || !said.insert(p.path).second) continue;
    // Nothing moved at all: a warning; a plateau, or a sweep for the energy: a note.
    const bool none = p.kind == SweepAxisPlateau::Kind::no_effect && p.moves.empty();
    warnings.add(fmt::format("{}: {} {}: {}", none ? "warning" : "note", flag, p.path,
                             sweep_plateau_text(p, subject, paths.size() > 1)));
  }
}

// The counts, the warnings and (with --summary) the summary as one JSON object on stdout.
void print_json(const nlohmann::json& head, const SweepWarnings& warnings,
                const std::optional<nlohmann::json>& summary) {
  nlohmann::json j = head;
  j["warnings"] = warnings.lines;
  if (summary) j["summary"] = *summary;
  std::cout << j.dump(2) << "\n";
}

int run_architecture_sweep(const SweepOptions& a) {
  const std::pair<const std::string*, const char*> required[] = {{&a.arch, "--arch"},
                                                                 {&a.workload, "--workload"}};
  for (const auto& [value, flag] : required)
    if (value->empty())
      throw InputError(SourceLocation{flag, 0, 0},
                       fmt::format("a sweep needs {} (or --strategy-grid with --model, "
                                   "--strategy and --cluster)",
                                   flag));
  ArchitectureGraph graph = load_architecture(resolve_architecture_option(a.arch));
  Workload workload = load_workload(a.workload);
  if (a.vary.empty())
    throw InputError(SourceLocation{"--vary", 0, 0},
                     "a sweep needs at least one --vary PATH=V1,V2,...");
  std::vector<SweepAxis> axes;
  for (const std::string& v : a.vary) axes.push_back(parse_sweep_axis(v, graph));
  std::vector<std::string> paths;
  for (const SweepAxis& axis : axes) paths.push_back(axis.path);
  const std::optional<SweepCost> cost = parse_sweep_cost(a.cost, paths, false);
  const SweepSampling sampling = parse_sweep_sampling(a.sample, a.seed);
  const std::vector<SweepAxisCap> caps = sweep_axis_caps(graph, axes);
  std::vector<SweepValues> points = sweep_points(axes, sampling);
  MapperOptions mapper;
  mapper.budget = a.budget;
  // The points are the parallel work: each is searched on one thread (the mapper finds the same
  // mapping whatever its thread count, so the results do not depend on this).
  mapper.parallel = false;
  const ArchitectureSweep sweep(std::move(graph), std::move(workload), std::move(axes),
                                std::move(points), mapper);
  // Before any point runs (and once the command line is known good): values the cost model
  // caps by another figure of the graph.
  SweepWarnings warnings;
  for (const SweepAxisCap& c : caps)
    warnings.add(fmt::format("warning: --vary {}: {}", c.path, sweep_cap_text(c)));
  std::optional<PointsRun> run = run_points(sweep, a);
  if (!run) return 0;
  std::string exchanged;
  if (!run->stopped) {
    // Monotone by construction: every point also tries the mappings found at the others, once
    // all are stored (a rerun that computes nothing new exchanges nothing new).
    StopOnInterrupt stop;
    TerminalProgress progress("mapping exchange");
    std::vector<SweepPointRecord> stored = stored_points_of(sweep, *run->store);
    const SweepExchangeResult ex = exchange_sweep_mappings(
        sweep, stored, &StopOnInterrupt::flag(), [&](size_t done, size_t total) {
          progress.show_bar(done, total, "operators' mappings exchanged among points");
        });
    progress.clear();
    if (ex.cancelled) {
      run->stopped = true;
    } else if (!ex.changed_points.empty()) {
      std::vector<SweepPointRecord> changed;
      for (size_t k : ex.changed_points) changed.push_back(stored[k]);
      run->store->update_sweep_points(changed);
    }
    if (ex.replaced > 0)
      exchanged = fmt::format(
          "; {} operator times at {} points took a faster mapping found at "
          "another point",
          ex.replaced, ex.changed_points.size());
  }
  const std::vector<SweepPointRecord> mine = stored_points_of(sweep, *run->store);
  const std::string counts =
      fmt::format("sweep of {} on {}: {}{}", sweep.workload().name,
                  resolve_architecture_option(a.arch), counts_text(sweep, *run, a.db), exchanged);
  const bool json = a.format == "json";
  if (!json) std::cout << counts << "\n";
  std::string unconverged = unconverged_warning(unconverged_searches(mine).operators, a.budget);
  if (!unconverged.empty() && unconverged.back() == '\n') unconverged.pop_back();
  warnings.add(unconverged);
  if (!run->stopped)
    warn_plateaus(warnings, "--vary", "the suite total", paths, mine, caps, sweep.axes());
  SweepSummaryText text;
  text.paths = paths;
  text.cost = cost;
  text.cost_header = "cost_bytes";
  // Bytes to the byte: a capacity step of a small memory is lost in a rounded figure.
  text.cost_text = [](double bytes) { return fmt::format("{:.0f}", bytes); };
  text.parameters_text = [&](const SweepPointRecord& p) {
    const std::vector<double> values = sweep_parameter_values(p, text.paths);
    std::string out;
    for (size_t k = 0; k < values.size(); ++k)
      out += fmt::format("{}{}={}", k ? " " : "", text.paths[k],
                         format_parameter(sweep.axes()[k].resolved.field, values[k]));
    return out;
  };
  const bool summary = a.summary && !run->stopped;
  if (json) {
    const nlohmann::json head{{"kind", "architecture sweep"},
                              {"workload", sweep.workload().name},
                              {"arch", resolve_architecture_option(a.arch)},
                              {"db", a.db},
                              {"points", sweep.size()},
                              {"already_stored", run->already},
                              {"computed", run->computed},
                              {"stopped", run->stopped},
                              {"line", counts}};
    print_json(head, warnings,
               summary ? std::optional(sweep_summary_json(text, mine, mine)) : std::nullopt);
  } else if (summary) {
    print_sweep_summary(std::cout, text, mine, mine);
  }
  return run->stopped ? 130 : 0;
}

int run_strategy_grid(const SweepOptions& a) {
  const SourceLocation grid{"--strategy-grid", 0, 0};
  if (!a.arch.empty() || !a.workload.empty() || !a.vary.empty())
    throw InputError(grid,
                     "a strategy grid varies a training job (--model, --strategy, --cluster); "
                     "--arch, --workload and --vary belong to an architecture sweep");
  if (a.sample != "cross")
    throw InputError(grid,
                     "a strategy grid is the cross product of its values; --sample is for "
                     "an architecture sweep");
  // The grid first: a bad key is named before any file is read or any point runs.
  const StrategyGridAxes axes = read_option("strategy grid", "--strategy-grid",
                                            [&] { return parse_strategy_grid(a.strategy_grid); });
  const std::pair<const std::string*, const char*> required[] = {
      {&a.model, "--model"}, {&a.strategy, "--strategy"}, {&a.cluster, "--cluster"}};
  for (const auto& [value, flag] : required)
    if (value->empty())
      throw InputError(SourceLocation{flag, 0, 0},
                       fmt::format("a strategy grid needs {} (as simulate does)", flag));
  StrategyGridInputs inputs = read_option("operator times", "--operator-times", [&] {
    return load_strategy_grid_inputs(a.model, a.strategy, a.operator_times);
  });
  // The grid's numeric keys: a cost is one of them or memory (no energy, no area in a grid).
  const std::optional<SweepCost> cost =
      parse_sweep_cost(a.cost, {"dp", "micro-batch", "pp", "tp", "schedule", "cluster"}, true);
  const std::string model_name = inputs.model.name;
  const StrategyGridSweep sweep(std::move(inputs), axes, load_grid_clusters(axes, a.cluster));
  if (sweep.size() == 0)
    throw InputError(grid, fmt::format("none of the {} points of the grid fits the model and the "
                                       "cluster (GPU count, degrees that divide the model, batch)",
                                       sweep.skipped()));
  const std::optional<PointsRun> run = run_points(sweep, a);
  if (!run) return 0;
  const std::string counts =
      fmt::format("strategy grid of {} from {}: {}; {} grid points left out (do not fit)",
                  model_name, a.strategy, counts_text(sweep, *run, a.db), sweep.skipped());
  const bool json = a.format == "json";
  if (!json) std::cout << counts << "\n";
  const std::vector<SweepPointRecord> mine = stored_points_of(sweep, *run->store);
  // The keys the points vary, as the GUI and the report fit them (dp last: on one cluster it
  // is determined by tp and pp).
  const std::vector<std::string> paths = varied_sweep_paths(mine);
  SweepWarnings warnings;
  if (!run->stopped) warn_plateaus(warnings, "--strategy-grid", "the iteration time", paths, mine);
  SweepSummaryText text;
  text.paths = paths;
  text.strategy_grid = true;
  text.cost = cost;
  text.cost_header = "memory_GiB";
  text.cost_text = [](double bytes) {
    return fmt::format("{:.3f}", bytes / (1024.0 * 1024 * 1024));
  };
  text.parameters_text = [&](const SweepPointRecord& p) {
    return strategy_point_text(p, text.paths);
  };
  std::vector<SweepPointRecord> fitting;
  for (const SweepPointRecord& p : mine)
    if (!strategy_point_out_of_memory(p)) fitting.push_back(p);
  const bool summary = a.summary && !run->stopped;
  if (json) {
    const nlohmann::json head{{"kind", "strategy grid"},
                              {"model", model_name},
                              {"strategy", a.strategy},
                              {"db", a.db},
                              {"points", sweep.size()},
                              {"already_stored", run->already},
                              {"computed", run->computed},
                              {"stopped", run->stopped},
                              {"left_out", sweep.skipped()},
                              {"out_of_memory", mine.size() - fitting.size()},
                              {"line", counts}};
    print_json(head, warnings,
               summary ? std::optional(sweep_summary_json(text, mine, fitting)) : std::nullopt);
  } else if (summary) {
    std::cout << fmt::format("{} of {} points run out of device memory\n",
                             mine.size() - fitting.size(), mine.size());
    print_sweep_summary(std::cout, text, mine, fitting);
  }
  return run->stopped ? 130 : 0;
}

}  // namespace

int run_sweep(const SweepOptions& a) {
  return a.strategy_grid.empty() ? run_architecture_sweep(a) : run_strategy_grid(a);
}

}  // namespace ts::cli
