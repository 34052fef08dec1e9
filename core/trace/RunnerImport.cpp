#include "trace/RunnerImport.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/ImportTransaction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/RunnerResults.hpp"
#include "workload/OperatorSpec.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts {
namespace {

// The import's settings, read from the request's options.
struct RunnerImportOptions {
  std::string results_path;
  std::string db_path;
  std::string workload_file;
  std::string arch_file;
  MapperOptions mapper;
  std::string command_line;
  std::string tool_version;
};

RunnerImportOptions runner_import_options(const ImportRequest& request) {
  auto option = [&](const std::string& name) {
    const auto it = request.options.find(name);
    return it == request.options.end() ? std::string() : it->second;
  };
  RunnerImportOptions o;
  o.results_path = request.file;
  o.db_path = request.db_path;
  o.workload_file = option("workload");
  o.arch_file = option("arch");
  if (const std::string budget = option("budget"); !budget.empty()) {
    size_t end = 0;
    try {
      o.mapper.budget = std::stoull(budget, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    if (end == 0 || end != budget.size())
      throw InputError(SourceLocation{"budget", 0, 0},
                       "'" + budget + "': expected a count of mapper evaluations");
  }
  o.command_line = request.command_line;
  o.tool_version = request.tool_version;
  return o;
}

struct ResolvedRecord {
  const RunnerKernelRecord* record = nullptr;
  OperatorKey key;
  std::optional<MappingRecord> mapping;
  std::optional<PredictionRecord> prediction;
};

Measurement measurement(const ResolvedRecord& r, TimingScope scope) {
  const RunnerTimes& t = scope == TimingScope::device ? r.record->device : r.record->host_call;
  Measurement m;
  m.op = r.key;
  m.mapping = r.mapping;
  // The store's name for tilescope's own kernel, whose tiling is the mapping, is `tiled` (as
  // the host collector's), so that correlate's per-shape ranking of mappings covers it.
  m.implementation = r.record->implementation == "tilescope" ? "tiled" : r.record->implementation;
  m.scope = scope;
  m.repetitions = r.record->repetitions;
  m.min_ns = t.min_ns;
  m.median_ns = t.median_ns;
  m.spread = t.spread;
  m.max_error = r.record->max_error;
  m.checked = r.record->checked;
  return m;
}

ResolvedRecord resolve(const RunnerKernelRecord& r, const std::string& file,
                       const Workload* workload, const ArchitectureGraph* graph,
                       const MapperOptions& mapper) {
  const SourceLocation where{file, r.line, 0};
  const std::string context = fmt::format("{}:{}", file, r.line);
  ResolvedRecord out;
  out.record = &r;
  Operator op;
  try {
    op = operator_from_spec(r.spec, context + " (spec)");
  } catch (const InputError& e) {
    throw InputError(where, "'spec': " + e.message());
  }
  if (op.name != r.op)
    throw InputError(where,
                     fmt::format("'spec' names operator '{}': expected '{}'", op.name, r.op));
  out.key = operator_key(op, r.suite);
  if (workload) {
    if (r.suite != workload->name)
      throw InputError(
          where, fmt::format("suite '{}': expected '{}', the workload's", r.suite, workload->name));
    const Operator* mine = nullptr;
    for (const Operator& w : workload->operators)
      if (w.name == op.name) mine = &w;
    if (!mine || operator_key(*mine, workload->name).spec != out.key.spec)
      throw InputError(where, fmt::format("operator {} ({}) is not in workload {} as measured",
                                          op.name, op.shape_text(), workload->name));
  }
  std::optional<Mapping> mapping;
  if (!r.mapping_yaml.empty()) {
    try {
      mapping = parse_mapping(r.mapping_yaml, context + " (mapping_yaml)");
    } catch (const InputError& e) {
      throw InputError(where, "'mapping_yaml': " + e.message());
    }
    out.mapping = MappingRecord{r.mapping_hash, r.mapping_name, r.mapping_yaml};
  }
  if (!graph) return out;
  OperatorPredictionOptions o;
  o.mapper = mapper;
  o.mapping = mapping ? &*mapping : nullptr;
  MappingProgram program;
  Prediction p;
  try {
    p = predict_operator(op, *graph, o, &program);
  } catch (const InputError& e) {
    throw InputError(where, fmt::format("no prediction for {} {} on {}: {}", op.name,
                                        r.implementation, graph->name, e.message()));
  }
  PredictionRecord pr;
  pr.op = out.key;
  pr.mapping = out.mapping;
  pr.arch_hash = hash_text(graph->content_hash());
  pr.arch_name = graph->name;
  pr.device_s = p.device_us * 1e-6;
  pr.launch_s = p.launch_overhead_us * 1e-6;
  pr.bound_by = p.bound_by;
  if (!mapping) pr.chosen_mapping_yaml = mapping_yaml(program, op.name + "-mapper", "");
  out.prediction = std::move(pr);
  return out;
}

void write_runs(ResultStore& store, const RunnerImportOptions& o, const RunnerResults& results,
                const std::vector<ResolvedRecord>& resolved, const std::string& arch_hash,
                ImportResult& out) {
  for (const ResolvedRecord& r : resolved)
    if (r.prediction) store.add_prediction(*r.prediction), ++out.predictions;
  const nlohmann::json device = nlohmann::json::parse(results.run_device_json, nullptr, false);
  std::string device_name = device.is_object() ? device.value("name", std::string()) : "";
  if (device_name.empty()) device_name = results.kernels.front().device_name;
  // Results of several plans may be imported as one file: the run names every suite in it.
  std::string suite;
  for (const RunnerKernelRecord& r : results.kernels)
    if (("+" + suite + "+").find("+" + r.suite + "+") == std::string::npos)
      suite += (suite.empty() ? "" : "+") + r.suite;
  for (const std::string& impl : kRunnerImplementations) {
    for (TimingScope scope : {TimingScope::device, TimingScope::host_call}) {
      std::vector<Measurement> ms;
      for (const ResolvedRecord& r : resolved)
        if (r.record->implementation == impl) ms.push_back(measurement(r, scope));
      if (ms.empty()) continue;
      RunStart start;
      start.collector = "cupti";
      start.workload = suite;
      start.tool_version = o.tool_version;
      RunSettings settings;
      settings.command = o.command_line;
      settings.results_file = o.results_path;
      settings.implementation = impl;
      settings.timing_scope = scope;
      settings.mapper_budget = o.mapper.budget;
      if (!o.workload_file.empty()) settings.workload_file = o.workload_file;
      if (!o.arch_file.empty()) settings.arch_file = o.arch_file, settings.arch_hash = arch_hash;
      start.settings_json = run_settings_json(settings);
      start.device.name = device_name;
      start.device.kind = "nvidia-gpu";
      start.device.arch_hash = arch_hash;
      start.device.properties_json = results.run_device_json;
      ImportedRun run;
      run.id = store.begin_run(start);
      run.implementation = impl;
      run.scope = scope;
      for (const Measurement& m : ms) {
        store.add_measurement(run.id, m);
        ++run.measurements;
        if (!m.checked) ++run.unchecked;
      }
      store.finish_run(run.id, RunStatus::complete);
      out.runs.push_back(run);
    }
  }
}

}  // namespace

std::vector<ImporterOption> RunnerImporter::options() const {
  return {
      {"arch",
       "graph to predict every record on; the predictions are stored with the runs (without "
       "it, give --arch to correlate)",
       false, ""},
      {"workload", "check that every record's operator is this workload's, unchanged", false, ""},
      {"budget", "mapper evaluations per black-box operator", false,
       std::to_string(MapperOptions{}.budget)}};
}

Sniff RunnerImporter::sniff(std::string_view first_line) const {
  const nlohmann::json j = nlohmann::json::parse(first_line, nullptr, false);
  if (j.is_object() && j.contains("record") && j.contains("runner_version")) return Sniff::yes;
  return first_line.substr(0, 1) == "{" ? Sniff::maybe : Sniff::no;
}

ImportResult RunnerImporter::import(const ImportRequest& request) const {
  const RunnerImportOptions o = runner_import_options(request);
  const RunnerResults results = read_runner_results(o.results_path);
  if (results.kernels.empty())
    throw InputError(SourceLocation{o.results_path, 0, 0},
                     "no kernel records: expected the output of `tilescope-cupti-runner --plan`");
  std::optional<Workload> workload;
  if (!o.workload_file.empty()) workload = load_workload(o.workload_file);
  std::optional<ArchitectureGraph> graph;
  if (!o.arch_file.empty()) graph = load_architecture(o.arch_file);
  const std::string arch_hash = graph ? hash_text(graph->content_hash()) : std::string();

  std::vector<ResolvedRecord> resolved;
  for (const RunnerKernelRecord& r : results.kernels)
    resolved.push_back(resolve(r, o.results_path, workload ? &*workload : nullptr,
                               graph ? &*graph : nullptr, o.mapper));

  ImportResult out;
  for (const std::string& e : results.job_errors) out.notes.push_back("runner job failed: " + e);
  // One transaction: a failure part way (a full disk, a locked file) stores none of it.
  import_into_store(o.db_path, [&](ResultStore& store) {
    write_runs(store, o, results, resolved, arch_hash, out);
  });
  return out;
}

}  // namespace ts
