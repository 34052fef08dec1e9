// `tilescope correlate`: predicted against measured latencies, per group and overall (count,
// Pearson, Spearman, Kendall tau-b, MAPE, log-RMSE), the worst predictions, the per-shape
// ranking of mappings, and with --fit a cross-validated fit. See docs/correlate.md.
#include "CorrelateCommand.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>

#include "GateExit.hpp"
#include "OptionValues.hpp"
#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "calibrate/GraphParameter.hpp"
#include "common/WorkThreads.hpp"
#include "correlate/AccuracyGate.hpp"
#include "correlate/CorrelationData.hpp"
#include "correlate/CorrelationFolds.hpp"
#include "correlate/CorrelationJson.hpp"
#include "correlate/FigureText.hpp"
#include "correlate/RunComparison.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"
#include "profile/ArchitectureReference.hpp"

namespace ts::cli {
namespace {

std::string size_rule(const std::vector<double>& t) {
  if (t.size() != 2) {
    std::string s;
    for (double v : t) s += (s.empty() ? "" : ", ") + fmt::format("{:.4g}", v);
    return "FLOP thresholds " + s;
  }
  return fmt::format("small < {:.4g} GFLOP <= medium < {:.4g} GFLOP <= large", t[0] / 1e9,
                     t[1] / 1e9);
}

void print_stats_row(const std::string& name, size_t width, const AgreementStats& s,
                     const AgreementStats* training) {
  std::cout << fmt::format("{:<{}}  {:>6}  {:>7}  {:>8}  {:>7}  {:>8}  {:>8}", name, width, s.count,
                           figure_text(s.pearson, 4), figure_text(s.spearman, 4),
                           figure_text(s.kendall, 4), percent_text(s.mape, 2),
                           figure_text(s.log_rmse, 4));
  if (training)
    std::cout << fmt::format("  {:>10}  {:>10}", percent_text(training->mape, 2),
                             figure_text(training->log_rmse, 4));
  std::cout << "\n";
}

// The graph file a stored run was predicted with (`measure` records it), when it still exists.
std::string recorded_arch_file(const std::string& db, std::optional<int64_t> run_id) {
  ResultStore store(db, ResultStore::Mode::read_only);
  const std::optional<RunInfo> run = store.run(run_to_read(store, run_id));
  return run ? recorded_arch_file(*run) : std::string();
}

// The graph to predict a run on when the run has no stored predictions of its own (an import
// that named its device's graph with --arch, but predicted nothing): the recorded one; "" when the
// run has stored predictions or recorded no graph.
std::string graph_of_unpredicted_run(const std::string& db, std::optional<int64_t> run_id) {
  ResultStore store(db, ResultStore::Mode::read_only);
  const std::optional<RunInfo> run = store.run(run_to_read(store, run_id));
  if (!run || !run->start.device.arch_hash.empty()) return {};
  return recorded_arch_file(*run);
}

// Exit status 1 when a --fail-if gate is crossed, after saying which on stderr; 2 when one
// cannot be checked. `no_points`: what an empty set of figures is (judge_gate).
int gate_status(const std::vector<AccuracyGate>& gates, const AgreementStats& overall,
                const std::string& no_points = "no points") {
  return gate_exit_status(judge_gates(gates, overall, no_points));
}

// `correlate --db NEW --diff OLD`: the stored predictions and measurements of both, operator by
// operator, the ones that got worse first.
int run_diff(const CorrelateOptions& a, const std::vector<AccuracyGate>& gates) {
  if (a.db.empty())
    throw InputError(SourceLocation{"--diff", 0, 0},
                     "--diff compares two results databases: give the newer one with --db");
  auto load = [&](const std::string& path, std::optional<int64_t> run) {
    DbInputOptions o;
    o.path = path;
    o.run = run;
    o.exclude_unstable = a.exclude_unstable;
    return db_input(o);
  };
  const CorrelationInput after = load(a.db, a.run);
  // The older side: run --diff-run (default: the same run id as --run, else the default run) of the
  // --diff file, or of the --db file itself.
  const CorrelationInput before =
      load(a.diff.empty() ? a.db : a.diff, a.diff_run ? a.diff_run : a.run);
  if (a.format == "csv")
    throw InputError(SourceLocation{"--format", 0, 0},
                     "--format csv lists one run's operators; a diff is written as table or json");
  const RunComparison c = compare_runs(before.points, after.points);
  // Nothing in common: said once on stderr, by the gate that cannot be checked when there is
  // one, else here; either way every figure is n/a.
  const std::string nothing_in_common = nothing_in_common_text(c, before.source, after.source);
  const std::string no_points = c.matched.empty() ? kNoOperatorInCommon : "no points";
  if (!nothing_in_common.empty() && gates.empty())
    std::cerr << "warning: " << nothing_in_common << "\n";
  if (a.format == "json") {
    std::cout << run_comparison_json(c, before.source, after.source) << "\n";
    return gate_status(gates, c.after, no_points);
  }
  std::cout << fmt::format("before: {}\nafter:  {}\n", before.source, after.source);
  std::cout << fmt::format("{} operators in both, {} only before, {} only after\n\n",
                           c.matched.size(), c.only_before.size(), c.only_after.size());
  std::cout << fmt::format("{:<8}  {:>7}  {:>8}  {:>7}  {:>8}\n", "", "pearson", "spearman", "MAPE",
                           "log-RMSE");
  for (const auto& [name, s] : {std::pair{"before", c.before}, std::pair{"after", c.after}})
    std::cout << fmt::format("{:<8}  {:>7}  {:>8}  {:>7}  {:>8}\n", name, figure_text(s.pearson, 4),
                             figure_text(s.spearman, 4), percent_text(s.mape, 2),
                             figure_text(s.log_rmse, 4));
  std::cout << fmt::format(
      "{:<8}  {:>7}  {:>8}  {:>7}  {:>8}\n", "change",
      signed_figure_text(figure_change(c.before.pearson, c.after.pearson), 4),
      signed_figure_text(figure_change(c.before.spearman, c.after.spearman), 4),
      percent_text(figure_change(c.before.mape, c.after.mape), 2, true),
      signed_figure_text(figure_change(c.before.log_rmse, c.after.log_rmse), 4));
  std::cout << "\noperators, worse first (error = predicted / measured - 1):\n";
  size_t w = 8;
  for (const OperatorDelta& d : c.matched) w = std::max(w, d.op.size());
  std::cout << fmt::format("{:<{}}  {:>12}  {:>12}  {:>9}  {:>9}  {:>9}\n", "operator", w,
                           "measured_us", "was", "change", "error", "was");
  for (const OperatorDelta& d : c.matched)
    std::cout << fmt::format("{:<{}}  {:>12.3f}  {:>12.3f}  {:>+8.1f}%  {:>+8.1f}%  {:>+8.1f}%\n",
                             d.op, w, d.after->measured_s * 1e6, d.before->measured_s * 1e6,
                             d.measured_change * 100, std::expm1(d.log_error_after) * 100,
                             std::expm1(d.log_error_before) * 100);
  for (const std::string& k : c.only_before) std::cout << "only before: " << k << "\n";
  for (const std::string& k : c.only_after) std::cout << "only after:  " << k << "\n";
  return gate_status(gates, c.after, no_points);
}

}  // namespace

int run_correlate(const CorrelateOptions& args) {
  CorrelateOptions a = args;
  // Gates are read first: a malformed one fails at once, before any long work.
  std::vector<AccuracyGate> gates;
  for (const std::string& text : a.fail_if)
    gates.push_back(
        read_option("accuracy gate", "--fail-if", [&] { return parse_accuracy_gate(text); }));
  if (!a.diff.empty() || a.diff_run) return run_diff(a, gates);
  // Fitting a stored run without --arch fits the graph the run was predicted with.
  if (!a.fit.empty() && a.arch.empty() && !a.db.empty()) {
    a.arch = recorded_arch_file(a.db, a.run);
    if (!a.arch.empty()) std::cerr << "fitting " << a.arch << ", the run's graph\n";
  }
  if (a.arch.empty() && !a.db.empty() && a.fit.empty()) {
    a.arch = graph_of_unpredicted_run(a.db, a.run);
    if (!a.arch.empty()) std::cerr << "graph: " << a.arch << ", the one the run recorded\n";
  }
  a.arch = resolve_architecture_option(a.arch);
  const bool from_csv = !a.csv.empty();
  if (from_csv == !a.db.empty())
    throw InputError(SourceLocation{"correlate", 0, 0},
                     "give the measurements with either --db FILE or --csv FILE (with --op)");
  if (from_csv && a.arch.empty())
    throw InputError(SourceLocation{"--csv", 0, 0},
                     "a CSV table holds no predictions; give the graph to predict it on with "
                     "--arch");
  if (!a.fit.empty() && a.arch.empty())
    throw InputError(SourceLocation{"--fit", 0, 0},
                     "fitting needs the graph whose parameters it fits; give it with --arch (the "
                     "run's recorded graph file is not there)");
  const Grouping grouping = read_option("grouping", "--by", [&] { return parse_grouping(a.by); });
  const DataType dtype = data_type_option(a.dtype);
  const TimingScope scope = timing_scope_option(a.timing_scope);

  std::optional<ArchitectureGraph> graph;
  if (!a.arch.empty()) graph = load_architecture(a.arch);
  // Parameters are checked before any long work, so that a typo fails at once.
  std::vector<GraphParameter> params;
  for (const std::string& text : a.fit)
    params.push_back(parse_graph_parameter(text, *graph, "--fit"));

  TerminalProgress progress("correlate");
  auto show_prediction = [&](size_t done, size_t total) {
    progress.show_count(done, total, fmt::format("predicting {}/{}", done, total));
  };
  MapperOptions mapper;
  mapper.budget = a.budget;
  CorrelationInput input;
  if (from_csv) {
    CsvInputOptions o;
    o.path = a.csv;
    o.op_type = a.op;
    o.device = a.device;
    o.dtype = dtype;
    o.scope = scope;
    o.mapper = mapper;
    o.with_samples = !params.empty();
    o.progress = show_prediction;
    run_with_threads(a.threads, [&] {
      input = read_option("operator class", "--op", [&] { return csv_input(*graph, o); });
    });
  } else {
    DbInputOptions o;
    o.path = a.db;
    o.run = a.run;
    o.graph = graph ? &*graph : nullptr;
    o.store_predictions = graph.has_value();
    o.reuse_stored = !a.repredict;
    o.mapper = mapper;
    o.with_samples = !params.empty();
    o.exclude_unstable = a.exclude_unstable;
    o.progress = show_prediction;
    run_with_threads(a.threads, [&] { input = db_input(o); });
  }
  progress.clear();

  std::optional<CrossValidation> cv;
  if (!params.empty()) {
    if (a.folds < 2 || static_cast<size_t>(a.folds) > input.points.size())
      throw InputError(SourceLocation{"--folds", 0, 0},
                       fmt::format("--folds {}: a cross-validated fit needs from 2 folds up to "
                                   "one per point ({} points)",
                                   a.folds, input.points.size()));
    run_with_threads(a.threads, [&] {
      cv = cross_validate(*graph, params, input.points, input.samples, a.folds, grouping,
                          a.max_evaluations, [&](int fold, int evaluations, double log_rmse) {
                            progress.show(fmt::format("fold {}/{}: evaluation {}, log-RMSE {:.4f}",
                                                      fold + 1, a.folds, evaluations, log_rmse));
                          });
    });
    progress.clear();
  }
  const std::vector<ComparedPoint>& points = cv ? cv->points : input.points;
  const CorrelationReport report = correlate_points(points, grouping);
  const bool per_shape_wanted = !from_csv;
  const std::vector<ShapeRanking> per_shape =
      per_shape_wanted ? per_shape_ranking(points) : std::vector<ShapeRanking>{};
  std::vector<std::string> notes = input.notes;
  if (report.failed_predictions > 0)
    notes.push_back(
        fmt::format("{} points whose mapping became invalid under a fold's fit are "
                    "left out of the figures",
                    report.failed_predictions));
  const std::string by_name = a.by.empty() ? "none" : a.by.substr(0, a.by.find('='));
  // After everything that can fail with an error (one line), before the figures.
  std::cerr << unconverged_warning(input.unconverged.operators, a.budget);

  if (a.format == "csv") {
    for (const std::string& n : notes) std::cerr << "note: " << n << "\n";
    std::cout << compared_points_csv(points);
    return gate_status(gates, report.overall);
  }
  if (a.format == "json") {
    CorrelationSummary summary;
    summary.input = &input;
    if (graph) summary.architecture = graph->name;
    summary.by = by_name;
    summary.grouping = grouping;
    summary.points = &points;
    summary.report = &report;
    summary.per_shape = per_shape_wanted ? &per_shape : nullptr;
    summary.cross_validation = cv ? &*cv : nullptr;
    summary.parameters = &params;
    summary.notes = notes;
    std::cout << correlation_json(summary) << "\n";
    return gate_status(gates, report.overall);
  }

  std::cout << fmt::format("correlate: {}\n", input.source);
  if (graph)
    std::cout << fmt::format("predicted on {} ({}, graph {}){}\n", graph->name, a.arch,
                             input.arch_hash, from_csv ? " with the mapper" : "");
  else
    std::cout << fmt::format("stored predictions of graph {}\n", input.arch_hash);
  std::cout << fmt::format("compared: {}\n", timing_comparison_text(points));
  if (input.trace_share) std::cout << trace_time_share_text(*input.trace_share) << "\n";
  if (grouping.by == GroupBy::size)
    std::cout << fmt::format("grouped by size: {}\n", size_rule(report.size_thresholds));
  else if (grouping.by != GroupBy::none)
    std::cout << fmt::format("grouped by {}\n", by_name);
  if (cv) {
    std::cout << fmt::format(
        "cross-validated: {} folds ({}); each fold is predicted with parameters fitted on the "
        "other {}; training = mean over the folds' training sets\n",
        cv->folds, kFoldAssignment, cv->folds - 1);
    for (const GraphParameter& p : params)
      std::cout << fmt::format(
          "  fit {} from {} within [{}, {}]\n", p.path, format_parameter(p.path, p.initial),
          format_parameter(p.path, p.lower), format_parameter(p.path, p.upper));
  }
  std::cout << "\n";

  size_t width = 7;
  for (const GroupStats& g : report.groups) width = std::max(width, g.group.size());
  std::cout << fmt::format("{:<{}}  {:>6}  {:>7}  {:>8}  {:>7}  {:>8}  {:>8}", "group", width,
                           "count", "pearson", "spearman", "kendall", "MAPE", "log-RMSE");
  if (cv) std::cout << fmt::format("  {:>10}  {:>10}", "train MAPE", "train logR");
  std::cout << "\n";
  for (size_t g = 0; g < report.groups.size(); ++g)
    print_stats_row(report.groups[g].group, width, report.groups[g].stats,
                    cv ? &cv->training_groups[g].stats : nullptr);
  print_stats_row("overall", width, report.overall, cv ? &cv->training : nullptr);

  if (cv) {
    // One column per parameter, as wide as its path or its widest value.
    std::vector<size_t> widths;
    for (size_t i = 0; i < params.size(); ++i) {
      size_t w = params[i].path.size();
      for (const FoldResult& f : cv->fold_results)
        w = std::max(w, format_parameter(params[i].path, f.values[i]).size());
      widths.push_back(w);
    }
    std::cout << "\nfold  train  test";
    for (size_t i = 0; i < params.size(); ++i)
      std::cout << fmt::format("  {:>{}}", params[i].path, widths[i]);
    std::cout << "  train logR  test logR\n";
    for (const FoldResult& f : cv->fold_results) {
      std::cout << fmt::format("{:>4}  {:>5}  {:>4}", f.fold + 1, f.train_count, f.test_count);
      for (size_t i = 0; i < params.size(); ++i)
        std::cout << fmt::format("  {:>{}}", format_parameter(params[i].path, f.values[i]),
                                 widths[i]);
      std::cout << fmt::format("  {:>10}  {:>9}\n", figure_text(f.training.log_rmse, 4),
                               figure_text(f.test.log_rmse, 4));
    }
  }

  if (!report.worst.empty()) {
    std::cout << fmt::format("\n{} worst predictions (by |ln(predicted / measured)|):\n",
                             report.worst.size());
    size_t name_w = 8, shape_w = 5, mapping_w = 7;
    for (const WorstPrediction& w : report.worst) {
      name_w = std::max(name_w, w.op_name.size());
      shape_w = std::max(shape_w, w.shape.size());
      mapping_w = std::max(mapping_w, w.mapping.size());
    }
    std::cout << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>12}  {:>11}  {:>8}  {}\n", "operator",
                             name_w, "shape", shape_w, "mapping", mapping_w, "predicted_us",
                             "measured_us", "error", "bound_by");
    for (const WorstPrediction& w : report.worst)
      std::cout << fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>12.3f}  {:>11.3f}  {:>+7.1f}%  {}\n",
                               w.op_name, name_w, w.shape, shape_w, w.mapping, mapping_w,
                               w.predicted_s * 1e6, w.measured_s * 1e6, w.error * 100, w.bound_by);
  }

  if (per_shape_wanted) {
    std::cout << "\nper-shape ranking (tiled matmul, operators with >= 3 mappings):\n";
    if (per_shape.empty()) {
      std::cout << "  none: no operator has 3 or more measured tiled mappings\n";
    } else {
      for (const ShapeRanking& s : per_shape)
        std::cout << fmt::format("  {:<48}  {:>3} mappings  spearman {:>7}\n", s.op, s.mappings,
                                 figure_text(s.spearman, 4));
      const size_t ranked = static_cast<size_t>(std::count_if(
          per_shape.begin(), per_shape.end(), [](const ShapeRanking& r) { return r.spearman; }));
      std::cout << fmt::format("mean per-shape Spearman: {} over {} operators{}\n",
                               figure_text(mean_spearman(per_shape), 4), ranked,
                               ranked < per_shape.size()
                                   ? fmt::format(" ({} whose latencies are all equal left out)",
                                                 per_shape.size() - ranked)
                                   : std::string());
    }
  }
  if (!notes.empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& n : notes) std::cout << "  " << n << "\n";
  }
  return gate_status(gates, report.overall);
}

}  // namespace ts::cli
