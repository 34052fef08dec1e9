#include "correlate/CorrelationData.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>

#include "analysis/MappingWriter.hpp"
#include "common/NameList.hpp"
#include "common/QuantityFormat.hpp"
#include "common/WorkThreads.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/ComparedTime.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/CsvMeasurements.hpp"
#include "workload/OperatorSpec.hpp"

namespace ts {
namespace {

// Counts finished jobs and reports them one at a time.
class ProgressCounter {
 public:
  ProgressCounter(const InputProgress& report, size_t total) : report_(report), total_(total) {}
  void step() {
    const size_t done = ++done_;
    if (!report_) return;
    std::lock_guard<std::mutex> lock(mutex_);
    report_(done, total_);
  }

 private:
  const InputProgress& report_;
  size_t total_;
  std::atomic<size_t> done_{0};
  std::mutex mutex_;
};

// What one prediction job produced. The resolved program points into the job's operator, so
// whatever is needed of it is taken out in the job itself.
struct Predicted {
  bool ok = false;
  std::string error;
  Prediction prediction;
  Operator op;
  std::optional<Mapping> concrete;  // for a FitSample
  std::string chosen_yaml;          // the mapper's choice for a black box, to store
};

// The measured operator, rebuilt from its stored spec. A spec written without a name (an import
// that knew only the shape) gets the key's name, which the workload reader requires.
Operator rebuild_operator(const OperatorKey& key, const std::string& file) {
  std::string spec = key.spec;
  if (!spec.empty() && spec.front() == '{' && spec.find("name:") == std::string::npos) {
    std::string quoted;  // a YAML single-quoted scalar: ' is written twice
    for (char c : key.name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    spec = "{name: '" + quoted + "', " + spec.substr(1);
  }
  Operator op = operator_from_spec(spec, file);
  op.name = key.name;
  return op;
}

}  // namespace

bool is_sqlite_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (in) {
    char header[16] = {};
    in.read(header, sizeof header);
    return in.gcount() == 16 && std::string(header, 16) == std::string("SQLite format 3\0", 16);
  }
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".sqlite" || ext == ".sqlite3" || ext == ".db";
}

CorrelationInput csv_input(const ArchitectureGraph& graph, const CsvInputOptions& options) {
  std::vector<CsvShapeMeasurement> rows =
      read_shape_measurements(options.path, options.op_type, options.dtype);
  const std::vector<std::string> devices = measurement_devices(rows);
  if (!options.device.empty()) {
    if (std::find(devices.begin(), devices.end(), options.device) == devices.end())
      throw InputError(
          SourceLocation{"--device", 0, 0},
          fmt::format("no row of device '{}' in {}; its devices: {}", options.device, options.path,
                      devices.empty() ? std::string("none named") : join_names(devices)));
    std::erase_if(rows, [&](const CsvShapeMeasurement& r) { return r.device != options.device; });
  } else if (devices.size() > 1) {
    throw InputError(SourceLocation{options.path, 0, 0},
                     fmt::format("the table holds kernels of {} devices ({}); say which one the "
                                 "graph stands for with --device, or fit them all with `tilescope "
                                 "fit --graph DEVICE=ARCH ...`",
                                 devices.size(), join_names(devices)));
  }
  if (rows.empty())
    throw InputError(SourceLocation{options.path, 2, 1},
                     "the table has a header but no rows; expected one shape per line");
  std::vector<Predicted> results(rows.size());
  ProgressCounter counter(options.progress, rows.size());
  OperatorPredictionOptions predict_options;
  predict_options.mapper = options.mapper;
  // Rows are independent (common/WorkThreads); the mapper is deterministic whatever the threads,
  // so the result is the same as a serial loop.
  for_each_item(rows.size(), [&](size_t i) {
    Predicted& r = results[i];
    try {
      MappingProgram program;
      r.prediction = predict_operator(rows[i].op, graph, predict_options, &program);
      if (options.with_samples) r.concrete = concrete_mapping(program, rows[i].op.name + "-mapper");
      r.ok = true;
    } catch (const InputError& e) {
      r.error = e.message();
    }
    counter.step();
  });

  CorrelationInput in;
  // A table that says its rows' types and device (NeuSight's) is named by them.
  const bool self_described = !rows.empty() && rows.front().scope.has_value();
  in.source = self_described
                  ? fmt::format("{} ({} rows of measured kernels{})", options.path, rows.size(),
                                rows.front().device.empty() ? "" : " of " + rows.front().device)
                  : fmt::format("{} ({} rows of {} {})", options.path, rows.size(), options.op_type,
                                to_string(options.dtype));
  in.arch_hash = hash_text(graph.content_hash());
  size_t failed = 0;
  std::string first_error;
  for (size_t i = 0; i < rows.size(); ++i) {
    const CsvShapeMeasurement& row = rows[i];
    const Predicted& r = results[i];
    if (!r.ok) {
      if (failed++ == 0) first_error = fmt::format("line {}: {}", row.line, r.error);
      continue;
    }
    ComparedPoint p = compared_point(operator_key(row.op, options.path));
    p.implementation = row.op_type;
    p.mapping = "mapper";
    // A table whose format says what its latencies cover (NeuSight's: host_call) says it here.
    p.scope = row.scope.value_or(options.scope);
    p.predicted_s = compared_seconds(r.prediction, p.scope);
    p.measured_s = row.measured_s;
    p.bound_by = r.prediction.bound_by;
    in.unconverged.note(r.prediction);
    in.points.push_back(std::move(p));
    if (options.with_samples)
      in.samples.push_back(
          FitSample{row.op, *r.concrete, row.scope.value_or(options.scope), row.measured_s});
  }
  if (failed > 0)
    in.notes.push_back(
        fmt::format("{} of {} rows could not be mapped on '{}' and are left out "
                    "(first: {})",
                    failed, rows.size(), graph.name, first_error));
  if (in.points.empty())
    throw InputError(
        SourceLocation{options.path, 0, 0},
        fmt::format("no row could be predicted on '{}' (first: {})", graph.name, first_error));
  return in;
}

std::string trace_time_share_text(const TraceTimeShare& s) {
  auto us = [](double ns) {
    return ns == 0 ? std::string("0 s") : format_quantity(ns * 1e-9, "s");
  };
  auto pct = [](double part, double whole) {
    return whole > 0 ? fmt::format("{:.1f} %", 100.0 * part / whole) : std::string("n/a");
  };
  std::string classes;
  for (const auto& [name, c] : s.classes)
    classes += fmt::format("\n  {:<14} {:>11} of {:>11} ({:>7})  predicted {:>11}", name,
                           us(c.compared_ns), us(c.trace_ns), pct(c.compared_ns, c.trace_ns),
                           c.compared_ns > 0 ? us(c.predicted_ns) : std::string("-"));
  std::string left;
  for (const auto& [why, ns] : s.trace.left_out_ns)
    left += fmt::format("\n  not stored: {} {} ({})", us(ns), why, pct(ns, s.trace.total_ns));
  return fmt::format(
      "coverage by time: the compared operators ran {} (median x runs) of the trace's {} of "
      "kernel time ({}); predicted {} for them{}{}",
      us(s.compared_ns), us(s.trace.total_ns), pct(s.compared_ns, s.trace.total_ns),
      us(s.predicted_ns), classes, left);
}

nlohmann::json trace_time_share_json(const TraceTimeShare& s) {
  nlohmann::json classes = nlohmann::json::object();
  for (const auto& [name, c] : s.classes)
    classes[name] = {{"trace_us", c.trace_ns / 1000},
                     {"compared_us", c.compared_ns / 1000},
                     {"predicted_us", c.predicted_ns / 1000}};
  return {{"trace_kernel_us", s.trace.total_ns / 1000},
          {"compared_us", s.compared_ns / 1000},
          {"predicted_us", s.predicted_ns / 1000},
          {"share", s.trace.total_ns > 0 ? nlohmann::json(s.compared_ns / s.trace.total_ns)
                                         : nlohmann::json(nullptr)},
          {"classes", classes},
          {"not_stored_us", coverage_json(s.trace)["left_out_us"]}};
}

CorrelationInput db_input(const DbInputOptions& options) {
  std::vector<Measurement> measurements;
  RunInfo run;
  std::string stored_arch_hash;
  std::vector<std::optional<PredictionRecord>> stored;  // per kept measurement, without a graph
  CorrelationInput in;
  size_t unchecked = 0;
  std::string first_unstable;
  {
    const ResultStore store(options.path, ResultStore::Mode::read_only);
    const int64_t id = run_to_read(store, options.run);
    const auto info = store.run(id);
    if (!info) {
      std::string ids;
      for (const RunInfo& r : store.runs()) ids += (ids.empty() ? "" : ", ") + std::to_string(r.id);
      throw InputError(SourceLocation{options.path, 0, 0},
                       fmt::format("no run {}; its runs: {}", id, ids.empty() ? "none" : ids));
    }
    run = *info;
    // Without a graph, reading the rows is about half the work (100,000 rows: 0.3 of 0.6 s, the
    // rest the join below): report it, as rows of the run read.
    const size_t total = static_cast<size_t>(std::max<int64_t>(run.measurement_count, 0));
    std::function<void(size_t)> rows_read;
    if (options.progress && !options.graph)
      rows_read = [&](size_t rows) { options.progress(std::min(rows, total), total); };
    for (Measurement& m : store.measurements(run.id, rows_read)) {
      if (!m.checked) {
        ++unchecked;
        continue;
      }
      if (!m.unstable.empty()) {
        if (in.unstable++ == 0) first_unstable = m.op.name + ": " + m.unstable;
        if (options.exclude_unstable) continue;
      }
      measurements.push_back(std::move(m));
    }
    if (rows_read) rows_read(total);
    stored_arch_hash = run.start.device.arch_hash;
    if (options.graph && options.reuse_stored && !options.with_samples)
      stored_arch_hash = hash_text(options.graph->content_hash());
    if (!options.graph || (options.reuse_stored && !options.with_samples)) {
      if (stored_arch_hash.empty() && !options.graph)
        throw InputError(SourceLocation{options.path, 0, 0},
                         fmt::format("run {} names no architecture graph, so it has no stored "
                                     "predictions; give the graph to predict its measurements "
                                     "on",
                                     run.id));
      // Every stored prediction of the graph in one query, rather than one query per
      // measurement: a run of 100,000 measurements opens in a second, not in several. The first
      // (lowest id) per operator and mapping is kept, as the per-measurement lookup returned.
      auto key = [](const OperatorKey& op, const std::optional<MappingRecord>& mapping) {
        return op.suite + '\x1f' + op.name + '\x1f' + op.dims + '\x1f' + op.dtypes + '\x1f' +
               (mapping ? mapping->hash : std::string());
      };
      std::map<std::string, PredictionRecord> by_key;
      for (PredictionRecord& p : store.predictions(stored_arch_hash))
        by_key.try_emplace(key(p.op, p.mapping), std::move(p));
      for (const Measurement& m : measurements) {
        const auto it = by_key.find(key(m.op, m.mapping));
        stored.push_back(it == by_key.end() ? std::nullopt : std::optional(it->second));
      }
    }
  }
  {
    const nlohmann::json settings =
        nlohmann::json::parse(run.start.settings_json, nullptr, /*allow_exceptions=*/false);
    if (settings.is_object() && settings.contains("trace_time"))
      if (std::optional<TraceTimeCoverage> c = coverage_from_json(settings["trace_time"])) {
        in.trace_share = TraceTimeShare{};
        in.trace_share->trace = std::move(*c);
        for (const auto& [name, t] : in.trace_share->trace.classes)
          in.trace_share->classes[name].trace_ns = t.total_ns;
      }
  }
  in.source = fmt::format("{} run {} ({} of {}, {} measurements)", options.path, run.id,
                          run.start.collector, run.start.workload, run.measurement_count);
  if (unchecked > 0)
    in.notes.push_back(
        fmt::format("{} measurements are left out: checked = false (their result "
                    "disagreed with the reference implementation)",
                    unchecked));
  in.unstable_excluded = options.exclude_unstable && in.unstable > 0;
  if (in.unstable > 0)
    in.notes.push_back(
        options.exclude_unstable
            ? fmt::format("{} measurements marked unstable by the collector are left out "
                          "(first: {})",
                          in.unstable, first_unstable)
            : fmt::format("{} measurements are marked unstable by the collector and counted "
                          "(first: {}); --exclude-unstable leaves them out",
                          in.unstable, first_unstable));

  // One prediction per measurement: stored, or made now on the given graph.
  std::vector<Predicted> results(measurements.size());
  if (options.graph) {
    const ArchitectureGraph& graph = *options.graph;
    in.arch_hash = hash_text(graph.content_hash());
    // The same operator and mapping measured twice is predicted once.
    std::map<std::string, size_t> first_of;
    std::vector<size_t> job_of(measurements.size());
    std::vector<size_t> jobs;
    for (size_t i = 0; i < measurements.size(); ++i) {
      const Measurement& m = measurements[i];
      if (!stored.empty() && stored[i]) {
        job_of[i] = i;
        continue;  // its stored prediction serves
      }
      const std::string key = m.op.spec + "|" + m.op.suite + "|" + m.op.name + "|" +
                              (m.mapping ? m.mapping->hash : std::string());
      auto [it, inserted] = first_of.emplace(key, i);
      if (inserted) jobs.push_back(i);
      job_of[i] = it->second;
    }
    ProgressCounter counter(options.progress, jobs.size());
    for_each_item(jobs.size(), [&](size_t j) {
      const Measurement& m = measurements[jobs[j]];
      Predicted& r = results[jobs[j]];
      try {
        r.op = rebuild_operator(m.op, options.path);
        OperatorPredictionOptions o;
        o.mapper = options.mapper;
        std::optional<Mapping> mapping;
        if (m.mapping) {
          mapping = parse_mapping(m.mapping->yaml,
                                  fmt::format("{} (mapping {})", options.path, m.mapping->name));
          o.mapping = &*mapping;
        }
        MappingProgram program;
        r.prediction = predict_operator(r.op, graph, o, &program);
        const std::string name =
            m.implementation + (m.mapping ? "/" + m.mapping->name : std::string());
        if (options.with_samples) r.concrete = concrete_mapping(program, name);
        if (!m.mapping) r.chosen_yaml = mapping_yaml(program, m.op.name + "-mapper", "");
        r.ok = true;
      } catch (const InputError& e) {
        r.error = e.what();
      }
      counter.step();
    });
    for (size_t i = 0; i < measurements.size(); ++i)
      if (job_of[i] != i) results[i] = results[job_of[i]];
  } else {
    in.arch_hash = stored_arch_hash;
  }

  size_t failed = 0, missing = 0, reused_count = 0;
  std::string first_error;
  std::vector<PredictionRecord> to_store;
  for (size_t i = 0; i < measurements.size(); ++i) {
    const Measurement& m = measurements[i];
    ComparedPoint p = compared_point(m.op);
    p.implementation = m.implementation;
    p.mapping = m.implementation + (m.mapping ? "/" + m.mapping->name : std::string());
    p.mapping_hash = m.mapping ? m.mapping->hash : std::string();
    p.scope = m.scope;
    p.measured_s = m.median_ns * 1e-9;
    const bool reused = options.graph && !stored.empty() && stored[i];
    if (reused) {
      p.predicted_s = compared_seconds(*stored[i], m.scope);
      p.bound_by = stored[i]->bound_by;
      ++reused_count;
    } else if (options.graph) {
      const Predicted& r = results[i];
      if (!r.ok) {
        if (failed++ == 0) first_error = r.error;
        continue;
      }
      const double device_s = r.prediction.device_us * 1e-6;
      const double launch_s = r.prediction.launch_overhead_us * 1e-6;
      p.predicted_s = compared_time(device_s, launch_s, m.scope);
      p.bound_by = r.prediction.bound_by;
      in.unconverged.note(r.prediction);
      if (options.store_predictions) {
        PredictionRecord rec;
        rec.op = m.op;
        rec.mapping = m.mapping;
        rec.arch_hash = in.arch_hash;
        rec.arch_name = options.graph->name;
        rec.device_s = device_s;
        rec.launch_s = launch_s;
        rec.bound_by = r.prediction.bound_by;
        rec.chosen_mapping_yaml = r.chosen_yaml;
        to_store.push_back(std::move(rec));
      }
      if (options.with_samples && p.measured_s > 0)
        in.samples.push_back(FitSample{r.op, *r.concrete, m.scope, p.measured_s});
    } else {
      const std::optional<PredictionRecord>& rec = stored[i];
      if (!rec) {
        ++missing;
        continue;
      }
      p.predicted_s = compared_seconds(*rec, m.scope);
      p.bound_by = rec->bound_by;
    }
    if (!(p.measured_s > 0)) {
      ++failed;
      if (first_error.empty()) first_error = "a measurement with no positive median";
      continue;
    }
    if (in.trace_share) {
      const double runs = std::max(1, m.repetitions);
      TraceTimeShare::ClassShare& c = in.trace_share->classes[p.op_class];
      c.compared_ns += m.median_ns * runs;
      c.predicted_ns += p.predicted_s * 1e9 * runs;
      in.trace_share->compared_ns += m.median_ns * runs;
      in.trace_share->predicted_ns += p.predicted_s * 1e9 * runs;
    }
    in.points.push_back(std::move(p));
  }
  if (missing > 0)
    in.notes.push_back(
        fmt::format("{} measurements have no stored prediction on graph {} and are "
                    "left out (give a graph to predict them on)",
                    missing, in.arch_hash));
  if (failed > 0)
    in.notes.push_back(
        fmt::format("{} measurements could not be predicted and are left out "
                    "(first: {})",
                    failed, first_error));
  if (in.points.empty())
    throw InputError(SourceLocation{options.path, 0, 0},
                     fmt::format("run {} has no measurement to correlate{}", run.id,
                                 in.notes.empty() ? "" : ": " + in.notes.back()));
  if (reused_count > 0)
    in.notes.push_back(fmt::format(
        "{} predictions reused from the database (graph {}, unchanged); {} predicted now{}",
        reused_count, in.arch_hash, measurements.size() - reused_count,
        reused_count == measurements.size() ? "" : " (no stored prediction)"));
  if (!to_store.empty()) {
    // Opened for writing only now, and only because new predictions are to be kept.
    ResultStore store(options.path, ResultStore::Mode::read_write);
    // All of them or none: a failure part way leaves the database as it was.
    store.write_all([&] {
      for (const PredictionRecord& rec : to_store) store.add_prediction(rec);
    });
    in.notes.push_back(fmt::format("{} predictions stored under graph {} ({})", to_store.size(),
                                   in.arch_hash, options.graph->name));
  }
  return in;
}

}  // namespace ts
