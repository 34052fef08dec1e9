#include "trace/TraceStepPrediction.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/NsysExport.hpp"
#include "trace/OperatorRunTimes.hpp"
#include "trace/TraceFileKind.hpp"
#include "trace/TraceKernelResolution.hpp"
#include "trace/TraceLoad.hpp"

namespace ts {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

// Keeps the kernels launched inside ProfilerStep#N (the rule TraceIteration uses), with what
// the resolution says of each; those whose launch the trace does not show cannot be placed and
// are dropped, counted. A reader that merged an operator's repeats over the steps
// (TraceOperator::occurrences) gave it every step's kernels: it keeps the share of its runs whose
// kernels are kept, so that its runs in the step split as they ran.
size_t keep_step_kernels(TraceEvents& events, ResolvedTrace& resolved, int64_t step,
                         const std::string& path) {
  const std::string name = fmt::format("{}{}", kStepPrefix, step);
  std::vector<std::pair<double, double>> spans;
  for (const TraceOperator& op : events.operators)
    if (op.name == name) spans.emplace_back(op.start_ns, op.start_ns + op.duration_ns);
  if (spans.empty())
    throw InputError(
        SourceLocation{path, 0, 0},
        fmt::format("no {} encloses a kernel launch; expected a step of the trace", name));
  size_t unplaced = 0;
  std::vector<char> keep(events.kernels.size(), 0);
  std::map<int64_t, std::pair<int64_t, int64_t>> kernels_of_instance;  // (all, kept)
  for (size_t k = 0; k < events.kernels.size(); ++k) {
    const TraceKernel& kernel = events.kernels[k];
    if (kernel.launch_ns < 0)
      ++unplaced;
    else
      for (const auto& [begin, end] : spans)
        if (kernel.launch_ns >= begin && kernel.launch_ns <= end) keep[k] = 1;
    if (const int64_t i = resolved.kernel_instance[k]; i >= 0) {
      ++kernels_of_instance[i].first;
      kernels_of_instance[i].second += keep[k];
    }
  }
  for (const auto& [instance, counts] : kernels_of_instance) {
    TraceOperator& op = events.operators[static_cast<size_t>(instance)];
    const auto [all, kept] = counts;
    if (kept > 0 && op.occurrences > 1)
      op.occurrences = std::max<int64_t>(1, (op.occurrences * kept + all / 2) / all);
  }
  size_t to = 0;
  resolved.fate_counts.clear();
  for (size_t k = 0; k < events.kernels.size(); ++k) {
    if (!keep[k]) continue;
    events.kernels[to] = std::move(events.kernels[k]);
    resolved.kernel_operator[to] = resolved.kernel_operator[k];
    resolved.kernel_fate[to] = resolved.kernel_fate[k];
    resolved.kernel_instance[to] = resolved.kernel_instance[k];
    ++resolved.fate_counts[resolved.kernel_fate[to]];
    ++to;
  }
  events.kernels.resize(to);
  resolved.kernel_operator.resize(to);
  resolved.kernel_fate.resize(to);
  resolved.kernel_instance.resize(to);
  return unplaced;
}

TraceEvents read_events(const std::string& path) {
  return trace_format_of(path) == "nsys" ? read_nsys_export(path) : read_kineto_trace(path);
}

nlohmann::json optional_us(const std::optional<double>& ns) {
  return ns ? nlohmann::json(*ns / 1000) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json trace_step_prediction_json(const TraceStepPrediction& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (const StepOperatorPrediction& o : p.operators)
    ops.push_back({{"operator", o.name},
                   {"shape", o.shape},
                   {"class", o.op_class},
                   {"kernels", o.kernels},
                   {"runs", o.runs},
                   {"measured_us", o.measured_ns / 1000},
                   {"here_us", optional_us(o.here_ns)},
                   {"there_us", optional_us(o.there_ns)},
                   {"error", o.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.error)}});
  return {{"trace", p.file},
          {"device", p.device_name},
          {"step", p.window.step >= 0 ? nlohmann::json(p.window.step) : nlohmann::json(nullptr)},
          {"here", p.here},
          {"there", p.there},
          {"measured_us", p.wall_ns / 1000},
          {"predicted_here_us", p.predicted_here_wall_ns() / 1000},
          {"predicted_there_us", p.predicted_there_wall_ns() / 1000},
          {"there_by_ratio_us", p.there_by_ratio_wall_ns() / 1000},
          {"modelled",
           {{"measured_us", p.modelled_ns / 1000},
            {"here_us", p.here_ns / 1000},
            {"there_us", p.there_ns / 1000},
            {"there_by_ratio_us", p.there_by_ratio_ns / 1000}}},
          {"carried_over_us", p.carried_ns() / 1000},
          {"kernel_coverage", coverage_json(p.coverage)},
          {"operators", ops},
          {"notes", p.notes}};
}

TraceStepPrediction predict_trace_step(const std::string& path, const ArchitectureGraph& here,
                                       const ArchitectureGraph& there, int64_t step,
                                       const MapperOptions& mapper,
                                       const std::function<void(size_t, size_t)>& progress) {
  TraceStepPrediction out;
  out.file = path;
  out.here = here.name;
  out.there = there.name;
  const Trace trace = load_trace({path});
  const RankTrace& rank = trace.ranks.front();
  try {
    out.window = window_of(rank, step);
  } catch (const std::out_of_range& e) {
    throw InputError(SourceLocation{"--step", 0, 0}, e.what());
  }
  out.wall_ns = static_cast<double>(out.window.wall_ns());
  out.device_name = rank.device_name;

  TraceEvents events = read_events(path);
  const KernelNameRules rules = KernelNameRules::builtin();
  ResolvedTrace resolved = resolve_trace(events, rules);
  if (step >= 0)
    if (const size_t unplaced = keep_step_kernels(events, resolved, step, path))
      out.notes.push_back(fmt::format(
          "{} kernels have no launch in the trace and cannot be placed in a step: left out",
          unplaced));
  out.coverage = trace_time_coverage(events, resolved, rules);
  for (std::string& n : resolution_notes(resolved)) out.notes.push_back(std::move(n));

  std::vector<StepOperatorPrediction> ops(resolved.operators.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const Operator& op = resolved.operators[i];
    ops[i].name = op.name;
    ops[i].shape = op.shape_text();
    ops[i].op_class = std::string(to_string(op.primary_class()));
  }
  for (const OperatorRunTimes& t : operator_run_times(events, resolved)) {
    StepOperatorPrediction& o = ops[static_cast<size_t>(t.op)];
    if (o.kernels.empty() || t.durations_ns.size() > static_cast<size_t>(o.runs))
      o.kernels = t.kernels;  // the most frequent launch pattern names it
    o.runs += static_cast<int64_t>(t.durations_ns.size());
    for (double ns : t.durations_ns) o.measured_ns += ns;
  }

  std::atomic<size_t> done{0};
  std::mutex progress_lock;
  tbb::parallel_for(size_t{0}, ops.size(), [&](size_t i) {
    StepOperatorPrediction& o = ops[i];
    if (o.runs == 0) return;  // none of its runs is in the step
    OperatorPredictionOptions options;
    options.mapper = mapper;
    for (const auto& [graph, result] :
         {std::pair{&here, &o.here_ns}, std::pair{&there, &o.there_ns}}) {
      try {
        *result = predict_operator(resolved.operators[i], *graph, options).device_us * 1e3 *
                  static_cast<double>(o.runs);
      } catch (const InputError& e) {
        if (o.error.empty()) o.error = fmt::format("{}: {}", graph->name, e.message());
      }
    }
    const size_t n = ++done;
    if (progress) {
      std::lock_guard lock(progress_lock);
      progress(n, ops.size());
    }
  });

  size_t unmodelled = 0;
  std::string first_error;
  ops.erase(std::remove_if(ops.begin(), ops.end(),
                           [](const StepOperatorPrediction& o) { return o.runs == 0; }),
            ops.end());
  for (const StepOperatorPrediction& o : ops) {
    if (!o.modelled()) {
      if (unmodelled++ == 0) first_error = o.name + ": " + o.error;
      continue;
    }
    out.modelled_ns += o.measured_ns;
    out.here_ns += *o.here_ns;
    out.there_ns += *o.there_ns;
    out.there_by_ratio_ns += *o.here_ns > 0 ? o.measured_ns * *o.there_ns / *o.here_ns : 0.0;
  }
  if (unmodelled > 0)
    out.notes.push_back(fmt::format(
        "{} operators could not be predicted on both graphs and are carried over as measured "
        "(first: {})",
        unmodelled, first_error));
  std::stable_sort(ops.begin(), ops.end(),
                   [](const StepOperatorPrediction& a, const StepOperatorPrediction& b) {
                     return a.measured_ns > b.measured_ns;
                   });
  out.operators = std::move(ops);
  return out;
}

}  // namespace ts
