#include "trace/TraceLoad.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "common/InputError.hpp"
#include "trace/KinetoRankTrace.hpp"
#include "trace/NsysExport.hpp"
#include "trace/TraceFileKind.hpp"

namespace ts {
namespace fs = std::filesystem;

namespace {
bool looks_like_trace_file(const fs::path& p) {
  const std::string name = p.filename().string();
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz") || ends_with(".sqlite");
}

int64_t ns_of(double t) { return std::llround(t); }
}  // namespace

std::vector<std::string> trace_files_of(const std::string& path) {
  std::error_code error;
  if (!fs::exists(path, error))
    throw InputError(
        SourceLocation{path, 0, 0},
        "no such file or folder; expected a trace file or a folder of per-rank traces");
  if (!fs::is_directory(path, error)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, error))
    if (entry.is_regular_file() && looks_like_trace_file(entry.path()))
      files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw InputError(SourceLocation{path, 0, 0},
                     "the folder holds no trace; expected per-rank Kineto traces (.json, "
                     ".json.gz) or Nsight Systems SQLite exports (.sqlite)");
  return files;
}

RankTrace rank_trace_from_events(const TraceEvents& events) {
  RankTrace rank;
  rank.file = events.file;
  rank.format = events.format;
  rank.device_name = events.device_name;
  rank.rank = -1;
  NameTable names(rank.names);
  const int32_t launch_name = names.intern("(launch)");
  for (const TraceOperator& op : events.operators) {
    CpuOperator o;
    o.start_ns = ns_of(op.start_ns);
    o.end_ns = ns_of(op.start_ns + std::max(0.0, op.duration_ns));
    o.name = names.intern(op.name);
    o.thread = op.thread;
    rank.ops.push_back(o);
  }
  size_t without_launch = 0;
  for (const TraceKernel& k : events.kernels) {
    GpuActivity a;
    a.start_ns = ns_of(k.start_ns);
    a.end_ns = ns_of(k.start_ns + std::max(0.0, k.duration_ns));
    const std::string& name = kernel_name(events, k);
    a.name = names.intern(name);
    a.device = k.device;
    a.stream = k.stream;
    a.time_class = classify_gpu_activity(GpuActivityKind::kernel, name);
    if (k.launch_ns >= 0) {
      a.launch = static_cast<int32_t>(rank.launches.size());
      rank.launches.push_back(LaunchCall{ns_of(k.launch_ns), ns_of(k.launch_ns), launch_name,
                                         k.launch_thread, k.correlation_id});
    } else {
      ++without_launch;
    }
    rank.gpu.push_back(a);
  }
  std::vector<TraceIteration> steps;
  finish_rank_trace(rank, std::move(steps));
  rank.notes = events.notes;
  if (without_launch)
    rank.notes.push_back(fmt::format(
        "{} of {} kernels have no launch in the trace: launch statistics leave them out",
        without_launch, events.kernels.size()));
  rank.notes.push_back(fmt::format(
      "{}: launch calls are points (no call duration), memory copies and sets are not read",
      events.format));
  return rank;
}

Trace load_trace(const std::vector<std::string>& paths,
                 const std::function<bool(double)>& progress) {
  std::vector<std::string> files;
  for (const std::string& p : paths)
    for (std::string& f : trace_files_of(p)) files.push_back(std::move(f));
  std::vector<uint64_t> sizes;
  uint64_t total = 0;
  for (const std::string& f : files) {
    std::error_code error;
    const uint64_t size = fs::file_size(f, error);
    sizes.push_back(error ? 0 : size);
    total += sizes.back();
  }
  Trace trace;
  uint64_t done = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    const std::string format = trace_format_of(file);
    auto file_progress = [&](double fraction) {
      if (!progress || total == 0) return true;
      return progress((static_cast<double>(done) + fraction * static_cast<double>(sizes[i])) /
                      static_cast<double>(total));
    };
    if (format == "kineto") {
      trace.ranks.push_back(read_kineto_rank_trace(file, file_progress));
    } else if (format == "nsys") {
      trace.ranks.push_back(rank_trace_from_events(read_nsys_export(file)));
    } else {
      throw InputError(SourceLocation{file, 0, 0},
                       "not a trace tilescope reads; expected a Kineto (PyTorch profiler) trace, "
                       "plain or .gz, or an Nsight Systems SQLite export");
    }
    done += sizes[i];
  }
  // Ranks as the traces say, else by their place among the files.
  for (size_t i = 0; i < trace.ranks.size(); ++i)
    if (trace.ranks[i].rank < 0) trace.ranks[i].rank = static_cast<int>(i);
  std::stable_sort(trace.ranks.begin(), trace.ranks.end(),
                   [](const RankTrace& a, const RankTrace& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < trace.ranks.size(); ++i)
    if (trace.ranks[i].rank == trace.ranks[i - 1].rank)
      throw InputError(SourceLocation{trace.ranks[i].file, 0, 0},
                       fmt::format("rank {} again (also {}); expected one trace per rank",
                                   trace.ranks[i].rank, trace.ranks[i - 1].file));
  return trace;
}

}  // namespace ts
