#include "report/ReportContent.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/RunSettings.hpp"
#include "workload/OperatorSpec.hpp"

namespace ts {
namespace {

// The run a database and an optional id name, or nothing when there is no such run (db_input
// then throws the error that says which runs there are).
std::optional<RunInfo> find_run(const std::string& db, std::optional<int64_t> run) {
  const ResultStore store(db, ResultStore::Mode::read_only);
  return store.run(run_to_read(store, run));
}

// The measured operator, rebuilt from its stored spec (as db_input rebuilds it to re-predict):
// a spec written without a name gets the key's name, which the workload reader requires.
Operator rebuild_operator(const OperatorKey& key, const std::string& file) {
  std::string spec = key.spec;
  if (!spec.empty() && spec.front() == '{' && spec.find("name:") == std::string::npos) {
    std::string quoted;
    for (char c : key.name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    spec = "{name: '" + quoted + "', " + spec.substr(1);
  }
  Operator op = operator_from_spec(spec, file);
  op.name = key.name;
  return op;
}

std::string point_mapping(const Measurement& m) {
  return m.implementation + (m.mapping ? "/" + m.mapping->name : std::string());
}

// The mapping tree behind one of the worst predictions: the measured mapping, or for a black
// box (a vendor kernel) the mapper's choice that the prediction was made with.
WorstEntry worst_entry(const WorstPrediction& w, const std::vector<Measurement>& measurements,
                       const ResultStore& store, const ReportRun& run,
                       const std::shared_ptr<const ArchitectureGraph>& graph, bool stored,
                       const MapperOptions& mapper) {
  WorstEntry e;
  e.worst = w;
  if (!graph) {
    e.missing = "no graph: give the one the predictions were made on with --arch";
    return e;
  }
  const auto m = std::find_if(measurements.begin(), measurements.end(), [&](const Measurement& x) {
    return x.checked && x.op.name == w.op_name && x.op.dims == w.shape &&
           point_mapping(x) == w.mapping;
  });
  if (m == measurements.end()) {
    e.missing = "the measurement is not in the run";
    return e;
  }
  try {
    auto op = std::make_shared<Operator>(rebuild_operator(m->op, run.db));
    std::string yaml;
    if (m->mapping) {
      yaml = m->mapping->yaml;
      e.mapping_note =
          fmt::format("the measured mapping {} ({})", m->mapping->name, m->mapping->hash);
    } else if (stored) {
      const auto p = store.prediction(m->op, "", run.input->arch_hash);
      if (p) yaml = p->chosen_mapping_yaml;
      e.mapping_note = fmt::format(
          "{} is a black box: the mapper's choice that its stored prediction was made with",
          m->implementation);
    } else {
      const OperatorOutcome o = map_operator(*op, *graph, mapper);
      yaml = o.mapping_yaml;
      if (!o.ok) e.missing = o.error;
      e.mapping_note =
          fmt::format("{} is a black box: the mapper's choice on the graph", m->implementation);
    }
    if (yaml.empty()) {
      if (e.missing.empty()) e.missing = "no mapping is stored for it";
      return e;
    }
    e.evaluation = evaluate_mapping_text(*op, *graph, yaml);
    e.keep_alive = std::make_shared<
        std::pair<std::shared_ptr<const Operator>, std::shared_ptr<const ArchitectureGraph>>>(
        op, graph);
  } catch (const InputError& error) {
    e.missing = error.what();
  }
  return e;
}

ReportRun read_run(const std::string& db, std::optional<int64_t> run_id,
                   const ArchitectureGraph* graph, const std::string& graph_file,
                   const MapperOptions& mapper, bool exclude_unstable) {
  ReportRun r;
  r.db = db;
  const std::optional<RunInfo> info = find_run(db, run_id);
  DbInputOptions o;
  o.path = db;
  o.run = run_id;
  o.mapper = mapper;
  o.exclude_unstable = exclude_unstable;
  // A graph other than the run's own re-predicts, as `correlate --arch` does, but keeps nothing:
  // a report never writes into the database.
  const std::string hash = graph ? hash_text(graph->content_hash()) : std::string();
  const bool repredict = graph && info && info->start.device.arch_hash != hash;
  if (repredict) o.graph = graph;
  r.input = std::make_unique<CorrelationInput>(db_input(o));
  if (info) r.info = *info;
  r.predictions = repredict ? fmt::format("re-predicted on {} ({}, graph {}), not stored",
                                          graph->name, graph_file, hash)
                            : fmt::format("stored predictions of graph {}", r.input->arch_hash);
  if (!r.input->unconverged.empty())
    r.predictions += "; " + unconverged_text(r.input->unconverged.operators, mapper.budget);
  return r;
}

}  // namespace

bool ReportContent::gates_crossed() const {
  return std::any_of(gates.begin(), gates.end(),
                     [](const GateVerdict& g) { return g.result == GateResult::crossed; });
}

bool ReportContent::gates_unchecked() const {
  return std::any_of(gates.begin(), gates.end(),
                     [](const GateVerdict& g) { return g.result == GateResult::not_checked; });
}

const AgreementStats& gated_stats(const ReportContent& content) {
  return content.comparison ? content.comparison->after : content.correlation.overall;
}

// The run's part of the report: its correlation, its worst predictions with their trees, and the
// graph they were made on.
void gather_run(ReportContent* c, const ReportOptions& options) {
  std::shared_ptr<ArchitectureGraph> given;
  if (!options.arch.empty())
    given = std::make_shared<ArchitectureGraph>(load_architecture(options.arch));
  c->run = read_run(options.db, options.run, given.get(), options.arch, options.mapper,
                    options.exclude_unstable);
  c->title = fmt::format("{} run {}", options.db, c->run.info.id);
  c->notes = c->run.input->notes;

  // The graph for the picture and the mapping trees: the one given, else the run's recorded
  // file while it is still the graph the stored predictions were made on.
  const bool stored = c->run.predictions.rfind("stored", 0) == 0;
  if (given) {
    c->graph = given;
    c->graph_file = options.arch;
  } else if (const std::string file = recorded_arch_file(c->run.info); !file.empty()) {
    try {
      auto recorded = std::make_shared<ArchitectureGraph>(load_architecture(file));
      if (hash_text(recorded->content_hash()) == c->run.input->arch_hash) {
        c->graph = recorded;
        c->graph_file = file;
      } else {
        c->notes.push_back(fmt::format(
            "the run's graph file {} has changed since the predictions were made (graph {}, "
            "stored {}): no graph picture or mapping trees; give the graph with --arch",
            file, hash_text(recorded->content_hash()), c->run.input->arch_hash));
      }
    } catch (const InputError& e) {
      c->notes.push_back(fmt::format("the run's graph file cannot be read: {}", e.what()));
    }
  } else {
    c->notes.push_back(
        "the run records no graph file that is still there: no graph picture or mapping trees; "
        "give the graph with --arch");
  }

  const std::vector<ComparedPoint>& points = c->run.input->points;
  c->correlation = correlate_points(points, Grouping{GroupBy::op_class, {}});
  c->per_shape = per_shape_ranking(points);
  std::set<std::string> bounds;
  for (const ComparedPoint& p : points)
    if (!p.bound_by.empty()) bounds.insert(p.bound_by);
  c->bottlenecks.assign(bounds.begin(), bounds.end());

  {
    const ResultStore store(options.db, ResultStore::Mode::read_only);
    const std::vector<Measurement> measurements = store.measurements(c->run.info.id);
    for (const WorstPrediction& w : c->correlation.worst)
      c->worst.push_back(
          worst_entry(w, measurements, store, c->run, c->graph, stored, options.mapper));
  }

  if (!options.diff.empty() || options.diff_run) {
    // The older side: run --diff-run (default: the same id as --run, else the default run) of the
    // --diff file, or of --db itself; its stored predictions, as `correlate --diff` reads them.
    const std::string db = options.diff.empty() ? options.db : options.diff;
    c->before = read_run(db, options.diff_run ? options.diff_run : options.run, nullptr, "",
                         options.mapper, options.exclude_unstable);
    c->comparison = compare_runs(c->before->input->points, points);
    const std::string nothing_in_common =
        nothing_in_common_text(*c->comparison, c->before->input->source, c->run.input->source);
    if (!nothing_in_common.empty()) c->notes.push_back(nothing_in_common);
  }
}

// Without a run, the report is named for what it shows.
std::string simulation_or_sweep_title(const ReportOptions& options) {
  if (!options.simulation.empty() && !options.sweep.empty())
    return fmt::format("{} and {}", options.simulation, options.sweep);
  return options.simulation.empty() ? options.sweep : options.simulation;
}

std::unique_ptr<ReportContent> gather_report(const ReportOptions& options) {
  auto c = std::make_unique<ReportContent>();
  c->tool_version = options.tool_version;
  c->command_line = options.command_line;
  c->generated_at = fmt::format(
      "{:%Y-%m-%dT%H:%M:%SZ}",
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));

  // A simulation's or a sweep's report needs no run: the database is only for a run's sections.
  if (!options.db.empty())
    gather_run(c.get(), options);
  else
    c->title = simulation_or_sweep_title(options);

  if (!options.simulation.empty()) {
    c->simulation = load_simulation_timeline(options.simulation);
    c->simulation_file = options.simulation;
  }

  if (!options.sweep.empty()) {
    // The sweep whose point was stored last: the one just run.
    const ResultStore store(options.sweep, ResultStore::Mode::read_only);
    const auto sweeps = store.sweeps();
    if (sweeps.empty())
      throw InputError(SourceLocation{options.sweep, 0, 0},
                       "holds no sweep points (expected a `tilescope sweep --db` file)");
    c->sweep = digest_sweep(store.sweep_points(sweeps.front().first, sweeps.front().second));
    c->sweep_file = options.sweep;
  }

  c->gates = judge_gates(
      options.gates, gated_stats(*c),
      c->comparison && c->comparison->matched.empty() ? kNoOperatorInCommon : "no points");
  return c;
}

}  // namespace ts
