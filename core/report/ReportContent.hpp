#pragma once
// What a headless report says, gathered from the inputs as plain values (no Qt): the run and its
// device, the correlation per operator class (the same core calls as `tilescope correlate --by
// class`), the worst predictions with their mapping trees on the graph that predicted them, the
// graph, a simulation, and a comparison with a second run (core compare_runs). The figures and
// the HTML or PDF are made from this by views/ReportFigures and views/ReportDocument.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "correlate/AccuracyGate.hpp"
#include "correlate/CorrelationData.hpp"
#include "correlate/RunComparison.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/OperatorEvaluation.hpp"
#include "measure/ResultStore.hpp"
#include "sweep/SweepDigest.hpp"
#include "training/SimulationTimeline.hpp"

namespace ts {

struct ReportOptions {
  std::string db;
  std::optional<int64_t> run;  // the default run (run_to_read) when none
  std::string arch;            // a graph file; empty: the run's recorded graph when it still fits
  std::string simulation;      // a `tilescope simulate --out` file, or empty
  std::string sweep;  // a database with `tilescope sweep` points: its latest sweep, or empty
  // A comparison: another database (`diff`), another run (`diff_run`), or both.
  std::string diff;
  std::optional<int64_t> diff_run;
  std::vector<AccuracyGate> gates;
  bool exclude_unstable = false;  // leave out measurements the collector marked unstable
  MapperOptions mapper;
  std::string tool_version;  // "tilescope 0.1.0"
  std::string command_line;  // as typed, recorded in the report
};

// One of the worst predictions and the mapping tree behind it, evaluated on the report's graph.
struct WorstEntry {
  WorstPrediction worst;
  std::string mapping_note;  // "measured mapping host-gemm-3" or "the mapper's choice ..."
  std::shared_ptr<const void> keep_alive;  // the operator and graph the evaluation points into
  MappingEvaluation evaluation;            // no program when there is no graph or no mapping
  std::string missing;                     // why there is no tree, when there is none
};

struct ReportRun {
  std::string db;
  RunInfo info;
  std::unique_ptr<CorrelationInput> input;  // owned here: comparisons point into its points
  std::string predictions;  // "stored predictions of graph H" or "re-predicted on FILE ..."
};

struct ReportContent {
  std::string title;
  std::string tool_version, command_line, generated_at;  // generated_at: ISO 8601 UTC
  // No run without a database: a report of a simulation or a sweep alone has only those
  // sections, and run, correlation, worst, graph and the comparison stay empty.
  ReportRun run;
  bool has_run() const { return run.input != nullptr; }
  CorrelationReport correlation;  // grouped by operator class
  std::vector<ShapeRanking> per_shape;
  std::vector<WorstEntry> worst;

  std::shared_ptr<const ArchitectureGraph> graph;  // null when none is known
  std::string graph_file;
  std::vector<std::string> bottlenecks;  // bound_by of the compared points, distinct

  std::optional<SimulationTimeline> simulation;
  std::string simulation_file;

  std::optional<SweepDigest> sweep;
  std::string sweep_file;

  std::optional<ReportRun> before;  // the comparison's older side
  std::optional<RunComparison> comparison;

  // Judged on the overall figures (the comparison's after side); a gate on a figure without a
  // value is not_checked, never passed.
  std::vector<GateVerdict> gates;
  std::vector<std::string> notes;

  bool gates_crossed() const;
  bool gates_unchecked() const;
};

// Reads everything the report needs; throws InputError naming the file for any bad input. The
// database is opened read-only: a report never writes into it. Without `db`, only the simulation
// and the sweep are read (one of them must be given).
std::unique_ptr<ReportContent> gather_report(const ReportOptions& options);

// The figures that overall --fail-if gates are judged on: the run's overall agreement, or with a
// comparison the after side on the operators both runs have (as `correlate --diff` judges them).
const AgreementStats& gated_stats(const ReportContent& content);

}  // namespace ts
