// tilescope's command line (CommandLineGrammar.hpp): every subcommand, option, flag, check,
// default and help text, bound to the fields of the commands' option structs, and the dispatch
// to their run functions. The one file of tilescope that includes CLI11, so that a command reads
// only its struct (whether an option was given is a field, set here from CLI11's count) and its
// tests and other faces can fill one without a parser; CLI11, large and header-only, is also
// parsed once. A new option is a field in the command's header and a line here; an option that
// names a file is declared through `files` as read, written or both (PathOptions.hpp), and no
// command runs with an output over one of its inputs or two outputs in one file.
#include "CommandLineGrammar.hpp"

#include <fmt/format.h>

#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "BenchCommand.hpp"
#include "BuiltinCollectors.hpp"
#include "CalibrateCommand.hpp"
#include "Commands.hpp"
#include "CompareCommand.hpp"
#include "CorrelateCommand.hpp"
#include "DbCommand.hpp"
#include "FitCommand.hpp"
#include "ImportCommand.hpp"
#include "MeasureCommand.hpp"
#include "PathOptions.hpp"
#include "PredictCommand.hpp"
#include "ProfilesCommand.hpp"
#include "ProfilesNewGpu.hpp"
#include "ReportForward.hpp"
#include "SimulateCommand.hpp"
#include "SweepCommand.hpp"
#include "TraceCommand.hpp"
#include "TraceStepCommand.hpp"
#include "UnknownCommand.hpp"
#include "ValidateCommand.hpp"
#include "ValidateDistCommand.hpp"
#include "common/WorkThreads.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/GpuSpec.hpp"

namespace ts::cli {
namespace {

// What a subcommand does once its options are parsed: returns the exit status. (Not to be
// confused with the CUPTI runner, the program that measures kernels on a GPU.)
using CommandAction = std::function<int()>;

// --threads of the commands that predict many operators (predict, compare, correlate): at least
// one; unset (0 in the struct), every core the process may use (common/WorkThreads).
void add_threads_option(CLI::App* cmd, int& threads, const std::string& what) {
  cmd->add_option("--threads", threads,
                  fmt::format("{} (default: every core, {} here; 1: one after another)", what,
                              available_threads()))
      ->check(CLI::Range(1, 4096));
}

CommandAction add_predict(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "Predict the latency of a workload's operators on an architecture graph");
  files.input(cmd->add_option("--arch", args->arch,
                              fmt::format("architecture graph: {}", kArchitectureForms))
                  ->required());
  files.input(
      cmd->add_option("--workload", args->workload, "workload suite (kind: workload)")->required());
  cmd->add_option("--op", args->op, "only this operator");
  files.input(cmd->add_option(
      "--mapping", args->mapping,
      "mapping for the operator (kind: mapping); free factors make it a template for the mapper"));
  cmd->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_flag("--explain", args->explain,
                "print the annotated mapping tree, traffic and residency");
  files.output(cmd->add_option("--save-mappings", args->save_mappings,
                               "write each operator's mapping to DIR/<arch>-<suite>-<op>.yaml"));
  cmd->add_option("--budget", args->budget, "mapper evaluations per operator")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--objective", args->objective,
                  "what the mapper minimises: latency (the device time), energy (needs energy "
                  "figures on every memory and unit the operator uses; prices every candidate, so "
                  "searches more slowly) or edp (energy x latency)")
      ->check(CLI::IsMember({"latency", "energy", "edp"}))
      ->capture_default_str();
  cmd->add_option("--phase", args->phase, "kind: llm-model only: the pass to predict")
      ->check(CLI::IsMember({"decode", "prefill"}));
  cmd->add_option("--batch", args->batch, "kind: llm-model only: sequences in the pass")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--context", args->context,
                  "kind: llm-model only: decode, the cached tokens per sequence (KV length)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--tokens", args->tokens, "kind: llm-model only: prefill, tokens per sequence")
      ->check(CLI::PositiveNumber);
  add_threads_option(cmd, args->threads, "operators predicted at once");
  return [args] { return run_predict(*args); };
}

CommandAction add_compare(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare a workload's predicted times and bounds on two or more graphs");
  files.input(
      cmd->add_option("--arch", args->archs,
                      fmt::format("architecture graph, given twice or more: {}; speed-ups are "
                                  "over the first",
                                  kArchitectureForms))
          ->required());
  files.input(
      cmd->add_option("--workload", args->workload, "workload suite (kind: workload)")->required());
  cmd->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--budget", args->budget, "mapper evaluations per operator and graph")
      ->check(CLI::PositiveNumber);
  add_threads_option(cmd, args->threads, "predictions made at once (operators, graphs)");
  return [args] { return run_compare(*args); };
}

CommandAction add_validate(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate",
                                     "Check input files (architecture, workload, mapping, "
                                     "model, strategy, cluster)");
  files.input(cmd->add_option("files", args->files, "files to check")->required());
  files.input(
      cmd->add_option("--arch", args->arch,
                      fmt::format("check mappings against this graph: {}", kArchitectureForms)));
  files.input(cmd->add_option("--workload", args->workload,
                              "check mappings against this workload's operator"));
  cmd->add_option("--op", args->op, "the operator a mapping is for, when it names none");
  cmd->add_flag("--tree", args->tree, "print each mapping's tree, one line per node");
  cmd->add_option("--format", args->format,
                  "output format: text (a line per file, errors on stderr) or json (every file's "
                  "verdict; errors on stderr too)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  return [args] { return run_validate(*args); };
}

CommandAction add_bench(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Benchmarks that print their figures");
  cmd->add_option("what", args->what,
                  "what to benchmark: model (the analysis and the mapper), simulate "
                  "(training simulations), import (a generated Kineto trace), sweep (1 and 2 "
                  "MPI ranks, 2 threads) or threads (predict, compare and correlate with "
                  "--threads 1 and with every core)")
      ->check(CLI::IsMember({"model", "simulate", "import", "sweep", "threads"}));
  cmd->add_option("--gb", args->import_gb, "import: GB of trace JSON to generate")
      ->check(CLI::PositiveNumber);
  files.input(cmd->add_option("--root", args->root,
                              "folder holding samples/ (default: tilescope's data folder)"));
  cmd->add_option("--seconds", args->seconds, "seconds per repetition")->check(CLI::PositiveNumber);
  cmd->add_option("--repetitions", args->repetitions, "repetitions (the best is kept)")
      ->check(CLI::PositiveNumber);
  cmd->add_option(
         "--part", args->parts,
         "which figures: rate (evaluations/s), suite (auto-mapping time), gap (mapper vs optimum)")
      ->check(CLI::IsMember({"rate", "suite", "gap"}));
  return [args] { return run_bench(*args); };
}

CommandAction add_calibrate(CLI::App& app, FileOptions& files) {
  CLI::App* cmd =
      app.add_subcommand("calibrate",
                         "Measure a device and write it as an architecture graph (docs/host.md); "
                         "--from-runner turns a GPU runner's calibration into one (docs/cupti.md)");
  cmd->require_subcommand(0, 1);
  auto args = std::make_shared<CalibrateOptions>();
  CalibrateGpuOptions* gpu_args = &args->gpu;
  files.input(cmd->add_option("--from-runner", gpu_args->from_runner,
                              "results of `tilescope-cupti-runner --calibrate` (JSON lines)"));
  files.output(cmd->add_option("--out", gpu_args->out, "with --from-runner: the graph to write"));
  files.input(
      cmd->add_option("--base", gpu_args->base,
                      fmt::format("with --from-runner: the graph whose datasheet figures are kept "
                                  "where nothing was measured: {}",
                                  kArchitectureForms))
          ->capture_default_str());
  cmd->add_option("--tensor-peak", gpu_args->peak,
                  "with --from-runner: the tensor-core rate to put in: wgmma (cuBLAS's, the "
                  "default), mma-sync (warp-level mma.sync's peak) or wmma-kernel (what "
                  "tilescope's own WMMA GEMM kernel reaches on a large GEMM)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, TensorPeak>{{"wgmma", TensorPeak::wgmma},
                                            {"mma-sync", TensorPeak::mma_sync},
                                            {"wmma-kernel", TensorPeak::wmma_kernel}},
          CLI::ignore_case));

  CalibrateHostOptions* host_args = &args->host;
  CLI::App* host = cmd->add_subcommand(
      "host",
      "This machine's CPU: hwloc topology and microbenchmarks (clock, vector FMA, exp, "
      "division and square root, cache and DRAM bandwidth, parallel-region start)");
  files.output(
      host->add_option(
              "--out", host_args->out,
              "graph to write; its templates go beside it as <stem>-gemm-template.yaml and "
              "<stem>-vector-template.yaml")
          ->capture_default_str());
  host->add_option("--runs", host_args->runs, "independent runs of every microbenchmark")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  host->add_option("--seconds", host_args->seconds,
                   "timed seconds per run of each microbenchmark (at least one pass over its "
                   "working set)")
      ->check(CLI::Range(1e-4, 60.0))
      ->capture_default_str();
  host->add_flag("--register", host_args->register_profile,
                 "also add this machine to the user's profiles as profile:host/this-machine "
                 "($XDG_DATA_HOME/tilescope/plugins/host; the bundled reference stays beside it)");

  return [host, args] {
    args->host_chosen = host->parsed();
    return run_calibrate(*args);
  };
}

CommandAction add_measure(CLI::App& app, FileOptions& files) {
  register_builtin_collectors(collectors());
  auto a = std::make_shared<MeasureOptions>();
  auto* cmd = app.add_subcommand(
      "measure", "run a suite's operators on a collector and store measurements and predictions");
  std::string where = "where to measure:";
  for (const std::string& name : collectors().names())
    where += "\n  " + name + ": " + collectors().find(name)->measures();
  cmd->add_option("--collector", a->collector, where)->capture_default_str();
  files.input(
      cmd->add_option("--workload", a->request.workload_file, "workload suite (YAML)")->required());
  files.input(cmd->add_option("--arch", a->request.arch_file,
                              fmt::format("the collector's architecture graph (from "
                                          "calibrate): {}",
                                          kArchitectureForms))
                  ->capture_default_str());
  files.input_output(cmd->add_option("--db", a->request.db_path,
                                     "results database (SQLite), created when missing"));
  files.output(
      cmd->add_option("--plan", a->request.plan_file,
                      "cupti: write the plan for tilescope-cupti-runner to this file and stop"));
  files.input(cmd->add_option(
      "--runner", a->request.runner_path,
      "cupti: the runner to run (default: tilescope-cupti-runner beside tilescope)"));
  files.input(
      cmd->add_option("--mappings", a->request.mappings_dir,
                      "folder of mapping files (each names its operator) for the GEMMs; default: "
                      "the mapper's top 3 and seeded samples of its valid space"));
  files.input(cmd->add_option(
                     "--kernel-template", a->request.kernel_template_file,
                     "cupti: the template the mappings of tilescope's own GEMM kernel are searched "
                     "from: the kernel's schedule ('' for the graph's matmul template)")
                  ->capture_default_str());
  cmd->add_option("--mappings-per-gemm", a->request.mappings_per_gemm,
                  "mappings per GEMM when generated (default: host 8, cupti 4)");
  cmd->add_option("--seed", a->request.seed,
                  "seed for drawn mappings, job order and operand values")
      ->capture_default_str();
  files.output(cmd->add_option("--save-mappings", a->request.save_mappings_dir,
                               "write the measured mappings to a folder"));
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
  return [a] { return run_measure(*a); };
}

CommandAction add_correlate(CLI::App& app, FileOptions& files) {
  auto a = std::make_shared<CorrelateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "correlate", "compare predicted with measured latencies: agreement per group and overall");
  // correlate stores the predictions it makes beside the runs, but it writes no file of its own:
  // its database is an input (`--diff` may name it too).
  auto* db = files.input(cmd->add_option("--db", a->db, "results database (SQLite)"));
  auto* csv = files.input(cmd->add_option(
      "--csv", a->csv, "a table of shapes and measured_us (columns named after the dimensions)"));
  db->excludes(csv);
  cmd->add_option("--run", a->run,
                  "run id in the database (default: the latest with a measurement)")
      ->needs(db);
  cmd->add_option(
      "--op", a->op,
      "operator class of the CSV rows: gemm, batched_gemm, linear, softmax, ..., by-row (each "
      "row's op column) or neusight (NeuSight's tables; recognised by their header without --op)");
  cmd->add_option("--device", a->device,
                  "only the CSV rows of this device (a table with a device column: NeuSight's)")
      ->needs(csv);
  cmd->add_option("--dtype", a->dtype, "data type of the CSV operators")->capture_default_str();
  cmd->add_option("--timing-scope", a->timing_scope,
                  "what the CSV latencies cover: host_call (device + launch) or device")
      ->capture_default_str();
  files.input(cmd->add_option(
      "--arch", a->arch,
      fmt::format("graph to predict on, {} (required for --csv; with --db predicts what has no "
                  "prediction stored under this graph, and stores; default with --db: the run's "
                  "recorded graph)",
                  kArchitectureForms)));
  cmd->add_flag("--repredict", a->repredict,
                "with --arch and --db: run the mapper for every measurement, even where a "
                "prediction of the same graph is stored");
  cmd->add_option("--by", a->by, "group by class, suite, mapping, size or size=T1,T2,...");
  cmd->add_flag("--exclude-unstable", a->exclude_unstable,
                "leave out measurements the collector marked unstable (a busy machine, a median "
                "not pinned down); without it they are counted in a note")
      ->needs(db);
  cmd->add_option("--fail-if", a->fail_if,
                  "exit with status 1 when the overall figures cross a threshold: mape>0.10, "
                  "spearman<0.95, ... (repeatable)");
  files.input(
      cmd->add_option("--diff", a->diff,
                      "compare with an older results database: per-operator deltas, worse first"));
  cmd->add_option("--diff-run", a->diff_run,
                  "the run to compare with (of --diff, or of --db without it)");
  cmd->add_option("--fit", a->fit,
                  "fit a graph parameter, cross-validated (PATH or PATH=LOW:HIGH; repeatable)");
  cmd->add_option("--folds", a->folds, "folds of the cross-validated fit")->capture_default_str();
  cmd->add_option("--max-evaluations", a->max_evaluations, "objective evaluations per fit")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--budget", a->budget, "mapper evaluations per operator")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", a->format,
                  "output format: table, json (figures and every operator), csv (every "
                  "operator's measured and predicted)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  add_threads_option(cmd, a->threads, "operators predicted at once, and a fit's evaluations");
  return [a] { return run_correlate(*a); };
}

CommandAction add_fit(CLI::App& app, FileOptions& files) {
  auto a = std::make_shared<FitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "fit", "fit architecture-graph parameters to measurements and write the fitted graph");
  files.input(cmd->add_option("--arch", a->arch,
                              fmt::format("the graph to start from: {}", kArchitectureForms)));
  files.input(
      cmd->add_option("--measurements", a->measurements_list,
                      "a results database (SQLite) or a CSV table (shape columns and measured_us); "
                      "with --graph, tables with a device column (repeatable)")
          ->required());
  cmd->add_option("--param", a->params,
                  "a parameter to fit: PATH or PATH=LOW:HIGH (repeatable; see docs/correlate.md)")
      ->required();
  files.output(
      cmd->add_option("--out", a->out,
                      "where to write the fitted graph (with --graph: the calibration, kind: "
                      "calibration)"));
  files.input(
      cmd->add_option(
          "--graph", a->graphs,
          "DEVICE=ARCH: the rows of DEVICE predicted on graph ARCH; several make one "
          "calibration for them all, relative to each graph's specification (docs/gpus.md)"),
      FileOptions::after_equals);
  cmd->add_flag("--leave-one-out", a->leave_one_out,
                "with --graph: also fit on all devices but one, for each, and print how each is "
                "predicted by the others' fit, beside a datasheet roofline");
  cmd->add_option("--sample", a->sample,
                  "with --graph: fit to at most this many rows of each device and operator type, "
                  "evenly through the tables (0: all); every row is still predicted to judge it")
      ->capture_default_str();
  files.input(cmd->add_option(
      "--calibration", a->base_calibration,
      "with --graph: a kind: calibration file applied to every graph first; the one "
      "written keeps its entries and adds the fitted ones"));
  cmd->add_option("--rows", a->rows,
                  "with --graph: read at most this many rows of each device and operator type "
                  "(0: all), for a quicker look")
      ->capture_default_str();
  cmd->add_option(
      "--op", a->op,
      "CSV: operator class of the rows (gemm, batched_gemm, ..., or by-row: each row's op column)");
  CLI::Option* dtype = cmd->add_option(
      "--dtype", a->dtype,
      "CSV: data type of the operators (with --graph: fp32 unless given; NeuSight rows are fp32)");
  dtype->capture_default_str();
  cmd->add_option("--device", a->device,
                  "CSV: only the rows of this device (a table with a device column)");
  cmd->add_option("--timing-scope", a->timing_scope,
                  "CSV: what the latencies cover, host_call (device + launch) or device")
      ->capture_default_str();
  cmd->add_option("--run", a->run, "database: the run to fit to (default: the latest)");
  cmd->add_option("--max-evaluations", a->max_evaluations, "objective evaluations")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--budget", a->budget, "mapper evaluations per operator")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return [a, dtype] {
    a->dtype_given = dtype->count() > 0;
    return run_fit(*a);
  };
}

CommandAction add_db(CLI::App& app, FileOptions& files) {
  CLI::App* cmd = app.add_subcommand("db", "Look into a results database (read-only)");
  cmd->require_subcommand(1);

  CLI::App* info =
      cmd->add_subcommand("info", "Schema version, rows per table, runs by status, file size");
  auto info_args = std::make_shared<DbInfoOptions>();
  files.input(info->add_option("--db", info_args->db, "results database")->required());
  info->add_option("--format", info_args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  CLI::App* runs = cmd->add_subcommand("runs", "The runs, oldest first");
  auto runs_args = std::make_shared<DbRunsOptions>();
  files.input(runs->add_option("--db", runs_args->db, "results database")->required());
  runs->add_option("--format", runs_args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  CLI::App* exp = cmd->add_subcommand(
      "export", "One row per measurement of a run, with the prediction for its device's graph");
  auto export_args = std::make_shared<DbExportOptions>();
  files.input(exp->add_option("--db", export_args->db, "results database")->required());
  exp->add_option("--run", export_args->run,
                  "run id (default: the latest run that holds a measurement)");
  exp->add_option("--format", export_args->format, "output format")
      ->check(CLI::IsMember({"csv", "json"}))
      ->capture_default_str();
  files.output(exp->add_option("--out", export_args->out,
                               "write to FILE (via a temporary file) instead of stdout"));

  return [info, runs, exp, info_args, runs_args, export_args] {
    if (info->parsed()) return run_db_info(*info_args);
    if (runs->parsed()) return run_db_runs(*runs_args);
    if (exp->parsed()) return run_db_export(*export_args);
    return 2;
  };
}

CommandAction add_simulate(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Simulate one training iteration of a model under a strategy on a cluster");
  files.input(cmd->add_option("--model", args->model,
                              "model (kind: model): a transformer family or a graph of operators")
                  ->required());
  files.input(cmd->add_option("--strategy", args->strategy, "parallel strategy (kind: strategy)")
                  ->required());
  files.input(cmd->add_option("--cluster", args->cluster, fmt::format("cluster: {}", kClusterForms))
                  ->required());
  cmd->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}));
  cmd->add_option("--sweep", args->sweep,
                  "simulate every valid strategy over axes such as tp=1,2,4,8 pp=1,2,4 mbs=1,2 "
                  "dp=2,4 schedule=1f1b,interleaved (the keys of sweep --strategy-grid but "
                  "cluster; dp not given: the GPUs of --strategy), ranked");
  files.input(
      cmd->add_option("--operator-times", args->operator_times,
                      "tile (the tile model on the device graph), roofline:EFF (peak x EFF and HBM "
                      "bandwidth) or db:FILE (measured medians from a results database, the tile "
                      "model for the rest)"),
      FileOptions::after_prefix_db);
  files.output(cmd->add_option(
      "--out", args->out, "write the whole result as JSON (schema_version, summary, timeline)"));
  files.output(
      cmd->add_option("--timeline", args->timeline,
                      "write the pipeline's run as Chrome-trace JSON (opens in Perfetto)"));
  cmd->add_flag("--every-replica", args->every_replica,
                "run every data-parallel replica's pipeline and the gradient rings on the "
                "executor instead of one pipeline standing for all (same answer, slower)");
  return [args] { return run_simulate(*args); };
}

CommandAction add_validate_dist(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<ValidateDistOptions>();
  CLI::App* cmd = app.add_subcommand("validate-dist",
                                     "Published training runs against the simulator's predictions");
  files.input(cmd->add_option("file", args->file,
                              "runs to check (kind: dist-validation); default Table 5"));
  files.input(cmd->add_option("--operator-times", args->operator_times,
                              "tile, roofline:EFF or db:FILE, as simulate"),
              FileOptions::after_prefix_db);
  cmd->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}));
  return [args] { return run_validate_dist(*args); };
}

// An importer's options are its own (core/trace): those that name files, by name. A new one
// that names a file is added here.
void tag_importer_option(FileOptions& files, const std::string& name, CLI::Option* option) {
  if (name == "workload-out")
    files.output(option);
  else if (name == "arch" || name == "workload")
    files.input(option);
  else if (name == "kernel-rules")
    files.input(option, FileOptions::comma_list);
}

CommandAction add_import(CLI::App& app, FileOptions& files) {
  register_builtin_importers(importers());
  CLI::App* cmd = app.add_subcommand(
      "import", "bring measurements made elsewhere into a results database (see docs/store.md)");
  cmd->require_subcommand(1);
  std::vector<std::pair<CLI::App*, const Importer*>> kinds;
  auto a = std::make_shared<ImportOptions>();
  for (const Importer* importer : importers().all()) {
    CLI::App* sub = cmd->add_subcommand(importer->name(), importer->reads());
    files.input(sub->add_option("file", a->file, "the file to import")->required());
    files.input_output(
        sub->add_option("--db", a->db, "results database (SQLite), created when missing")
            ->required());
    for (const ImporterOption& o : importer->options()) {
      std::string& value = a->importer_options[importer->name()][o.name];
      value = o.default_value;
      // An importer's --arch is resolved as every other (ImportCommand): its help says so.
      CLI::Option* opt = sub->add_option(
          "--" + o.name, value,
          o.name == "arch" ? fmt::format("{}: {}", o.help, kArchitectureForms) : o.help);
      tag_importer_option(files, o.name, opt);
      if (o.required) opt->required();
      if (!o.default_value.empty()) opt->capture_default_str();
    }
    kinds.emplace_back(sub, importer);
  }
  return [kinds, a] {
    for (const auto& [sub, importer] : kinds)
      if (sub->parsed()) return run_import(*importer, *a);
    return 2;
  };
}

// `gpu` under `profiles new`; the action runs it when it was parsed.
CommandAction add_profiles_new_gpu(CLI::App& new_command, FileOptions& files) {
  CLI::App* cmd = new_command.add_subcommand(
      "gpu",
      "A GPU's profile from its specification: give the datasheet's figures (flags or --spec "
      "FILE); every figure not given comes from the generation's rules, each named in the output");
  auto a = std::make_shared<NewGpuOptions>();
  files.input(
      cmd->add_option("--spec", a->spec, "a `kind: gpu_spec` file; flags override its figures"));
  cmd->add_option("--name", a->name, "the variant name (profile:NAME; graph VENDOR-NAME)");
  cmd->add_option("--vendor", a->vendor, "nvidia (default) or amd: whose rules apply");
  cmd->add_option("--product", a->product, "the product's name, e.g. \"NVIDIA L4\"");
  cmd->add_option("--generation", a->generation,
                  "nvidia: pascal volta turing ampere ada hopper; amd: cdna1 cdna2 cdna3");
  cmd->add_option("--memory-type", a->memory_type, "e.g. GDDR6, HBM3 (informative)");
  for (const SpecFigureKey& k : spec_figure_keys()) {
    const std::string key(k.key);
    const std::string fallback =
        k.required             ? " (required)"
        : key == "power"       ? " (caps the lanes' sustained rate; no cap if not given)"
        : key == "fp16_vector" ? " (default: fp32 x the generation's ratio)"
        : key == "fp32"        ? " (default: lanes x 2 x sms x clock)"
                               : " (default: the generation's rule)";
    cmd->add_option(spec_flag(k.key), a->figure_text[key],
                    fmt::format("{}, e.g. {}{}", k.meaning, k.example, fallback));
  }
  cmd->add_option("--tensor", a->tensor,
                  "dense tensor-core rates, TYPE=RATE comma-separated: "
                  "fp16=121TFLOP/s,bf16=121TFLOP/s,tf32=60TFLOP/s,fp8=242.5TFLOP/s,int8=242.5TOP/s "
                  "(AMD: fp32=45.3TFLOP/s for the matrix cores' fp32)");
  files.input(
      cmd->add_option("--family", a->family,
                      "the generation rules (default: plugins/VENDOR/family.yaml, bundled)"));
  files.input(
      cmd->add_option("--calibration", a->calibration,
                      "a `kind: calibration` file applied on top, or none (default: the vendor's "
                      "bundled plugins/VENDOR/calibration.yaml when there is one)"),
      FileOptions::unless_none);
  files.output(cmd->add_option("--out", a->out,
                               "a new or empty folder for the profile: profile.yaml, NAME.yaml, "
                               "NAME.spec.yaml, kernels/"));
  files.output(
      cmd->add_option("--graph", a->graph,
                      "write only the graph, naming the family's kernel templates where they are"));
  cmd->add_flag("--force", a->force, "write into a --out folder that is not empty");
  return [cmd, a] { return cmd->parsed() ? run_profiles_new_gpu(*a) : 0; };
}

CommandAction add_profiles(CLI::App& app, FileOptions& files) {
  CLI::App* cmd = app.add_subcommand(
      "profiles", "List the hardware profiles (profile:NAME[/VARIANT] for --arch) and show one");
  cmd->require_subcommand(1);
  CLI::App* list = cmd->add_subcommand(
      "list", "every profile found, where it was loaded from, and those that failed with why");
  auto list_format = std::make_shared<std::string>("text");
  list->add_option("--format", *list_format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  auto name = std::make_shared<std::string>();
  CLI::App* show = cmd->add_subcommand("show", "one profile: its variants, graphs and files");
  show->add_option("name", *name, "the profile's name")->required();
  CLI::App* add = cmd->add_subcommand(
      "new", "write a new profile: `new gpu` from a GPU's specification (its datasheet figures)");
  add->require_subcommand(1);
  const CommandAction new_gpu = add_profiles_new_gpu(*add, files);
  return [list, list_format, show, name, add, new_gpu] {
    if (list->parsed()) return run_profiles_list(*list_format);
    if (show->parsed()) return run_profiles_show(*name);
    if (add->parsed()) return new_gpu();
    return 0;
  };
}

CommandAction add_sweep(CLI::App& app, FileOptions& files) {
  auto args = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Predict a workload over a space of architecture parameters, or simulate training over "
      "a grid of strategies (threads or MPI)");
  files.input(cmd->add_option("--arch", args->arch,
                              fmt::format("architecture graph: {}", kArchitectureForms)));
  files.input(cmd->add_option("--workload", args->workload, "workload suite (kind: workload)"));
  cmd->add_option("--vary", args->vary,
                  "PATH=V1,V2,... a graph parameter and its values (repeatable), e.g. "
                  "node:L1.capacity=256KiB,512KiB,1MiB");
  files.input(cmd->add_option(
                  "--strategy-grid", args->strategy_grid,
                  "instead of --arch/--workload/--vary: simulate a training job at every point "
                  "of KEY=V1,V2,... with KEY tp, pp, dp, micro-batch (mbs), schedule or cluster "
                  "(files), e.g. --strategy-grid tp=1,2,4 pp=1,2; needs --model, --strategy, "
                  "--cluster"),
              FileOptions::grid_clusters);
  files.input(cmd->add_option("--model", args->model, "strategy grid: model (kind: model)"));
  files.input(
      cmd->add_option("--strategy", args->strategy,
                      "strategy grid: the base strategy (kind: strategy); the grid's keys replace "
                      "its values"));
  files.input(
      cmd->add_option("--cluster", args->cluster,
                      fmt::format("strategy grid: the cluster, unless the grid varies cluster: {}",
                                  kClusterForms)));
  files.input(
      cmd->add_option("--operator-times", args->operator_times,
                      "strategy grid: tile (default), roofline:EFF or db:FILE, as simulate"),
      FileOptions::after_prefix_db);
  files.input_output(
      cmd->add_option("--db", args->db, "results database the points are stored in (resumable)")
          ->required());
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
  cmd->add_option("--cost", args->cost,
                  "what the Pareto front sets time against: auto (suite energy where every point "
                  "has it, else graph area, else memory bytes), memory, energy, area, edp, or a "
                  "varied parameter (PATH, or a grid's key), whose value is the cost")
      ->capture_default_str();
  cmd->add_option("--format", args->format,
                  "output format: text (table: the same) or json (the counts, the warnings and, "
                  "with --summary, the summary as one object)")
      ->check(CLI::IsMember({"text", "table", "json"}))
      ->capture_default_str();
  return [args] { return run_sweep(*args); };
}

CommandAction add_trace(CLI::App& app, FileOptions& files) {
  CLI::App* cmd = app.add_subcommand(
      "trace", "Where a profile's time went: breakdowns, overlap, idle time, launches, diff");
  cmd->require_subcommand(1);
  struct View {
    const char* name;
    const char* description;
  };
  const View views[] = {
      {"summary", "Per rank: the temporal breakdown, overlap, idle time, launches, top kernels"},
      {"breakdown",
       "Per rank: compute / communication / memory / idle time, and the top kernels and "
       "operators"},
      {"overlap", "Per rank: how much communication ran under compute"},
      {"idle", "Per rank and stream: idle time by cause (host-bound, another stream, other)"},
      {"launch", "Per rank: launch-to-start delays, kernels shorter than their launch, queues"},
      {"diff", "Two traces of the same model, operator by operator: time before, after, change"},
      {"host",
       "Per rank: the host's time per framework call by kind (aten op, GEMM, view, autograd "
       "node, collective), as a cluster file's host: section for simulate"},
  };
  std::vector<std::pair<CLI::App*, std::shared_ptr<TraceOptions>>> subs;
  for (const View& v : views) {
    auto args = std::make_shared<TraceOptions>();
    args->view = v.name;
    CLI::App* sub = cmd->add_subcommand(v.name, v.description);
    files.input(
        sub->add_option("traces", args->traces,
                        std::string(v.name) == "diff"
                            ? "BEFORE AFTER: each a trace file or a folder of per-rank traces"
                            : "trace files (Kineto .json / .json.gz, Nsight Systems .sqlite "
                              "export) or folders of per-rank traces")
            ->required());
    sub->add_option("--format", args->format, "output format")
        ->check(CLI::IsMember({"text", "json", "csv"}))
        ->capture_default_str();
    sub->add_option("--step", args->step, "only ProfilerStep#N (default: each rank's whole trace)");
    sub->add_option("--top", args->top, "kernels and operators listed")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    subs.emplace_back(sub, args);
  }
  auto step = std::make_shared<TraceStepOptions>();
  CLI::App* predict = cmd->add_subcommand(
      "predict",
      "A traced step measured, predicted on the graph of the chip it ran on, and predicted on "
      "another chip's graph");
  files.input(predict
                  ->add_option("trace", step->trace,
                               "a trace file (Kineto .json / .json.gz, Nsight Systems .sqlite "
                               "export)")
                  ->required());
  files.input(predict
                  ->add_option(
                      "--arch", step->here,
                      fmt::format("the graph of the chip the trace ran on: {}", kArchitectureForms))
                  ->required());
  files.input(predict
                  ->add_option("--on", step->there,
                               fmt::format("the other chip's graph: {}", kArchitectureForms))
                  ->required());
  predict->add_option("--step", step->step, "only ProfilerStep#N (default: the whole trace)");
  predict->add_option("--format", step->format, "output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  predict->add_option("--top", step->top, "operators listed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  predict->add_option("--budget", step->budget, "mapper evaluations per operator")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return [subs, predict, step] {
    if (predict->parsed()) return run_trace_step(*step);
    for (const auto& [sub, args] : subs)
      if (sub->parsed()) return run_trace(*args);
    return 2;
  };
}

// The report's options are tilescope-report's (app/report/ReportCommandLine.cpp), which tags
// its file options and checks them with the same guard.
CommandAction add_report(CLI::App& app, FileOptions&) {
  CLI::App* cmd = app.add_subcommand("report", kReportDescription);
  cmd->prefix_command();
  return [cmd] { return exec_report(cmd->remaining()); };
}

}  // namespace

int run_command_line(int argc, char** argv) {
  CLI::App app{
      "tilescope: predict, measure and compare deep-learning operators on architecture graphs"};
  app.set_version_flag("--version", std::string("tilescope ") + TILESCOPE_VERSION);
  app.require_subcommand(1);
  std::map<CLI::App*, CommandAction> actions;
  FileOptions files;  // every option that names a file, read or written
  auto reg = [&](CommandAction (*add)(CLI::App&, FileOptions&)) {
    size_t before = app.get_subcommands({}).size();
    CommandAction r = add(app, files);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) actions[subs.back()] = std::move(r);
  };
  reg(&add_predict);
  reg(&add_compare);
  reg(&add_validate);
  reg(&add_bench);
  reg(&add_calibrate);
  reg(&add_measure);
  reg(&add_correlate);
  reg(&add_fit);
  reg(&add_db);
  reg(&add_simulate);
  reg(&add_validate_dist);
  reg(&add_import);
  reg(&add_report);
  reg(&add_profiles);
  reg(&add_sweep);
  reg(&add_trace);
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (const std::optional<std::string> text = unknown_command_text(argv[1], names)) {
      std::cerr << *text << "\n";
      return 2;
    }
  }
  return parse_and_run(app, argc, argv, [&] {
    // Before any work: no output over an input, no two outputs into one file.
    files.refuse_clashes();
    for (auto& [sub, run] : actions)
      if (sub->parsed()) return run();
    return 0;
  });
}

}  // namespace ts::cli
