#include "trace/TraceImport.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/InputError.hpp"
#include "common/NewFileBeside.hpp"
#include "measure/ImportTransaction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"
#include "profile/ProfileRegistry.hpp"
#include "trace/OperatorRunTimes.hpp"
#include "trace/TraceKernelResolution.hpp"
#include "trace/TraceTimeCoverage.hpp"
#include "workload/WorkloadWriter.hpp"

namespace ts {
namespace {

std::string option(const ImportRequest& request, const std::string& name) {
  const auto it = request.options.find(name);
  return it == request.options.end() ? std::string() : it->second;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

void report(const TraceImportProgress& progress, std::string_view stage, double fraction) {
  if (progress && !progress(stage, fraction)) throw TraceImportCancelled();
}

Measurement measurement_of(const OperatorRunTimes& times, const OperatorKey& key) {
  std::vector<double> d = times.durations_ns;
  std::sort(d.begin(), d.end());
  const size_t n = d.size();
  Measurement m;
  m.op = key;
  m.implementation = times.kernels;
  m.scope = TimingScope::device;  // a profiler's kernel record is the kernel's execution alone
  m.repetitions = static_cast<int>(n);
  m.min_ns = d.front();
  m.median_ns = n % 2 ? d[n / 2] : (d[n / 2 - 1] + d[n / 2]) / 2;
  m.spread = m.median_ns > 0 ? (d.back() - d.front()) / m.median_ns : 0;
  // A trace carries no check against a reference implementation; like a table of measured
  // latencies (CsvImport), its kernels are stored as checked so that correlate uses them.
  m.checked = true;
  return m;
}

// Writes `text` to `path` under a temporary name beside it; returns the temporary's name.
std::string write_beside(const std::string& path, const std::string& text) {
  const NewFileBeside created = create_file_beside(path, "cannot write the workload");
  ::close(created.fd);
  const std::string temporary = created.path;
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    ::unlink(temporary.c_str());
    throw InputError(SourceLocation{path, 0, 0}, "cannot write the workload (disk full?)");
  }
  return temporary;
}

}  // namespace

std::vector<TraceKernelSpan> trace_kernel_spans(const TraceEvents& events,
                                                const ResolvedTrace& resolved,
                                                std::string_view suite) {
  std::vector<std::string> names;  // the stored name of each resolved operator
  names.reserve(resolved.operators.size());
  for (const Operator& op : resolved.operators) names.push_back(operator_key(op, suite).name);
  std::vector<TraceKernelSpan> spans;
  spans.reserve(events.kernels.size());
  for (size_t k = 0; k < events.kernels.size(); ++k) {
    const TraceKernel& kernel = events.kernels[k];
    const int op = resolved.kernel_operator[k];
    spans.push_back({kernel_name(events, kernel),
                     op < 0 ? std::string() : names[static_cast<size_t>(op)], kernel.start_ns,
                     kernel.duration_ns, kernel.device, kernel.stream});
  }
  return spans;
}

std::vector<ImporterOption> trace_import_options() {
  return {
      {"suite", "suite the operators belong to (default: the trace's name without extension)",
       false, ""},
      {"workload-out",
       "also write the distinct operators that ran (shapes, dtypes, counts) as a workload file",
       false, ""},
      {"kernel-rules",
       "kernel-name rules files (kind: kernel_rules), comma separated, tried before the "
       "built-in rules",
       false, ""},
      {"profile", "a hardware profile whose kernel_rules to use (tilescope profiles)", false, ""},
      {"arch", "the graph of the device the trace ran on, recorded with the run for correlate",
       false, ""},
      {"device", "the device's name (default: what the trace says)", false, ""},
  };
}

KernelNameRules kernel_rules_for(const ImportRequest& request) {
  KernelNameRules rules;
  for (const std::string& file : split_list(option(request, "kernel-rules")))
    rules.append(KernelNameRules::load(file));
  if (const std::string name = option(request, "profile"); !name.empty()) {
    const LoadedProfile* profile = installed_profiles().find(name);
    if (!profile)
      throw InputError(
          SourceLocation{"--profile", 0, 0},
          fmt::format("no profile '{}'; expected one of {}", name, installed_profiles().names()));
    for (const std::string& file : profile->profile.kernel_rules)
      rules.append(KernelNameRules::load(file));
  }
  rules.append(KernelNameRules::builtin());
  return rules;
}

PreparedTraceImport prepare_trace_import(TraceEvents& events, const ImportRequest& request,
                                         const TraceImportProgress& progress,
                                         std::vector<TraceKernelSpan>* spans) {
  const KernelNameRules rules = kernel_rules_for(request);
  report(progress, "match", 0);
  PreparedTraceImport out;
  out.resolved = resolve_trace(events, rules);
  const ResolvedTrace& resolved = out.resolved;
  report(progress, "match", 1);

  std::string suite = option(request, "suite");
  if (suite.empty()) {
    // `bert_step.json.gz` -> `bert_step`: both extensions say how it is stored, not what it is.
    std::filesystem::path stem = std::filesystem::path(request.file).filename();
    while (stem.has_extension()) stem = stem.stem();
    suite = stem.string();
  }
  out.suite = suite;

  const std::vector<OperatorRunTimes> groups = operator_run_times(events, resolved);
  std::vector<OperatorKey> keys;
  keys.reserve(resolved.operators.size());
  for (const Operator& op : resolved.operators) keys.push_back(operator_key(op, suite));
  out.measurements.reserve(groups.size());
  for (const OperatorRunTimes& g : groups)
    out.measurements.push_back(measurement_of(g, keys[static_cast<size_t>(g.op)]));

  if (spans) {
    std::vector<TraceKernelSpan> these = trace_kernel_spans(events, resolved, suite);
    if (spans->empty()) {
      *spans = std::move(these);
    } else {
      spans->insert(spans->end(), std::make_move_iterator(these.begin()),
                    std::make_move_iterator(these.end()));
    }
  }

  out.coverage = trace_time_coverage(events, resolved, rules);
  const TraceTimeCoverage& coverage = out.coverage;
  out.notes = events.notes;
  for (std::string& note : resolution_notes(resolved)) out.notes.push_back(std::move(note));
  if (!events.kernels.empty()) out.facts.push_back(coverage_text(coverage));

  if (!resolved.operators.empty()) {
    Workload w;
    w.name = suite;
    w.description = fmt::format(
        "operators that ran in {} ({}{}{}); they are {:.1f} % of its kernel time", request.file,
        events.format, events.device_name.empty() ? "" : ", on ", events.device_name,
        coverage.total_ns > 0 ? 100.0 * coverage.stored_ns / coverage.total_ns : 0.0);
    w.operators = resolved.operators;
    for (size_t i = 0; i < w.operators.size(); ++i)
      w.operators[i].count = resolved.operator_runs[i];
    out.workload = std::move(w);
  }

  // The run as begin_run records it. Its JSON holds text of the file (the tool's version, the
  // device's name): a reader refuses what JSON cannot hold at its line; this is the last guard,
  // so that no import ends in a JSON library's exception.
  try {
    const std::string workload_out = option(request, "workload-out");
    RunSettings settings;
    settings.command = request.command_line;
    settings.results_file = request.file;
    settings.timing_scope = TimingScope::device;
    if (const std::string arch = option(request, "arch"); !arch.empty()) settings.arch_file = arch;
    if (!workload_out.empty()) settings.workload_file = workload_out;
    nlohmann::json settings_json = nlohmann::json::parse(run_settings_json(settings));
    settings_json["trace_format"] = events.format;
    settings_json["trace_tool_version"] = events.tool_version;
    settings_json["trace_kernels"] = events.kernels.size();
    settings_json["trace_time"] = coverage_json(coverage);
    RunStart& start = out.run;
    start.collector = "import:" + events.format;
    start.workload = suite;
    start.tool_version = request.tool_version;
    start.settings_json = settings_json.dump();
    start.device.name = option(request, "device");
    if (start.device.name.empty()) start.device.name = events.device_name;
    if (start.device.name.empty()) start.device.name = "unknown";
    start.device.kind = "imported-trace";
    start.device.properties_json = nlohmann::json{{"name", start.device.name}}.dump();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(
        SourceLocation{request.file, 0, 0},
        fmt::format("the run's settings cannot be written as JSON ({}); expected UTF-8 "
                    "text in the trace's names and versions and in the options",
                    e.what()));
  }
  return out;
}

ImportResult import_trace(TraceEvents events, const ImportRequest& request,
                          const TraceImportProgress& progress,
                          std::vector<TraceKernelSpan>* spans) {
  const PreparedTraceImport prepared = prepare_trace_import(events, request, progress, spans);
  ImportResult out;
  out.notes = prepared.notes;
  out.facts = prepared.facts;

  const std::string workload_out = option(request, "workload-out");
  std::string workload_temporary;
  if (!workload_out.empty()) {
    if (!prepared.workload)
      throw InputError(SourceLocation{request.file, 0, 0},
                       "no kernel has an operator with shapes, so there is no workload to write "
                       "(--workload-out); expected a trace recorded with record_shapes=True");
    workload_temporary = write_beside(workload_out, workload_yaml(*prepared.workload));
  }

  try {
    import_into_store(request.db_path, [&](ResultStore& store) {
      ImportedRun run;
      run.id = store.begin_run(prepared.run);
      run.implementation = events.format + " kernels";
      run.scope = TimingScope::device;
      const std::vector<Measurement>& ms = prepared.measurements;
      for (size_t g = 0; g < ms.size(); ++g) {
        if (g % 256 == 0) report(progress, "store", static_cast<double>(g) / ms.size());
        store.add_measurement(run.id, ms[g]);
        ++run.measurements;
      }
      store.finish_run(run.id, RunStatus::complete);
      out.runs.push_back(run);
    });
  } catch (...) {
    if (!workload_temporary.empty()) ::unlink(workload_temporary.c_str());
    throw;
  }
  report(progress, "store", 1);
  if (!workload_temporary.empty() &&
      std::rename(workload_temporary.c_str(), workload_out.c_str()) != 0) {
    ::unlink(workload_temporary.c_str());
    throw InputError(SourceLocation{workload_out, 0, 0},
                     fmt::format("cannot write the workload: {}", std::strerror(errno)));
  }
  return out;
}

}  // namespace ts
