#include "trace/RankTrace.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <stdexcept>
#include <string>

#include "trace/KernelOperatorMatch.hpp"

namespace ts {

std::string_view to_string(GpuActivityKind kind) {
  switch (kind) {
    case GpuActivityKind::kernel:
      return "kernel";
    case GpuActivityKind::memcpy:
      return "memcpy";
    case GpuActivityKind::memset:
      return "memset";
  }
  return "kernel";
}

std::string_view to_string(GpuTimeClass time_class) {
  switch (time_class) {
    case GpuTimeClass::compute:
      return "compute";
    case GpuTimeClass::communication:
      return "communication";
    case GpuTimeClass::memory:
      return "memory";
  }
  return "compute";
}

namespace {
bool contains_lowercase(std::string_view text, std::string_view needle) {
  if (needle.size() > text.size()) return false;
  for (size_t i = 0; i + needle.size() <= text.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && std::tolower(static_cast<unsigned char>(text[i + j])) == needle[j])
      ++j;
    if (j == needle.size()) return true;
  }
  return false;
}
}  // namespace

GpuTimeClass classify_gpu_activity(GpuActivityKind kind, std::string_view name) {
  if (kind != GpuActivityKind::kernel) return GpuTimeClass::memory;
  // Collective libraries name their kernels after themselves (ncclKernel_AllReduce_...,
  // ncclDevKernel_..., rcclKernel...); Ascend's HCCL likewise.
  if (contains_lowercase(name, "nccl") || contains_lowercase(name, "hccl"))
    return GpuTimeClass::communication;
  // A copy or a set that ran as a kernel (Memcpy DtoD in nsys, Memset kernels) moves memory.
  if (contains_lowercase(name, "memcpy") || contains_lowercase(name, "memset"))
    return GpuTimeClass::memory;
  return GpuTimeClass::compute;
}

int32_t NameTable::intern(std::string_view name) {
  key_.assign(name);
  const auto found = index_.find(key_);
  if (found != index_.end()) return found->second;
  const auto id = static_cast<int32_t>(names_.size());
  names_.push_back(key_);
  index_.emplace(key_, id);
  return id;
}

const std::string& RankTrace::name_of(int32_t id) const {
  static const std::string none;
  return id >= 0 && static_cast<size_t>(id) < names.size() ? names[static_cast<size_t>(id)] : none;
}

int64_t RankTrace::gpu_start_ns() const { return gpu.empty() ? 0 : gpu.front().start_ns; }

int64_t RankTrace::gpu_end_ns() const {
  int64_t end = gpu.empty() ? 0 : gpu.front().end_ns;
  for (const GpuActivity& a : gpu) end = std::max(end, a.end_ns);
  return end;
}

TimeWindow window_of(const RankTrace& rank, int64_t step) {
  if (step < 0) return TimeWindow{rank.gpu_start_ns(), rank.gpu_end_ns(), -1};
  for (const TraceIteration& it : rank.iterations)
    if (it.number == step) return TimeWindow{it.gpu_start_ns, it.gpu_end_ns, step};
  std::string have;
  for (const TraceIteration& it : rank.iterations)
    have += (have.empty() ? "" : ", ") + std::to_string(it.number);
  throw std::out_of_range(
      "rank " + std::to_string(rank.rank) + " has no ProfilerStep#" + std::to_string(step) +
      "; it has " + (have.empty() ? std::string("no ProfilerStep markers") : "steps " + have));
}

void finish_rank_trace(RankTrace& rank, std::vector<TraceIteration> steps) {
  auto by_start = [](const auto& a, const auto& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.end_ns > b.end_ns;
  };
  std::stable_sort(rank.gpu.begin(), rank.gpu.end(), by_start);
  std::stable_sort(rank.ops.begin(), rank.ops.end(), by_start);

  // Operators' parents and the operator enclosing each launch, by one sweep per thread.
  std::vector<TimeSpan> spans;
  spans.reserve(rank.ops.size());
  for (const CpuOperator& op : rank.ops)
    spans.push_back(
        TimeSpan{static_cast<double>(op.start_ns), static_cast<double>(op.end_ns), op.thread});
  std::vector<TimePoint> points;
  points.reserve(rank.launches.size());
  for (const LaunchCall& l : rank.launches)
    points.push_back(TimePoint{static_cast<double>(l.start_ns), l.thread});
  const Enclosure enclosure = innermost_enclosing(spans, points);
  for (size_t i = 0; i < rank.ops.size(); ++i)
    rank.ops[i].parent = static_cast<int32_t>(enclosure.span_parent[i]);
  for (GpuActivity& a : rank.gpu)
    if (a.launch >= 0)
      a.op = static_cast<int32_t>(enclosure.point_span[static_cast<size_t>(a.launch)]);

  // A collective's size, where the kernel did not carry it, from the record_param_comms
  // operator (PyTorch's record of a c10d call) around its launch.
  for (GpuActivity& a : rank.gpu) {
    if (a.bytes >= 0 || a.time_class != GpuTimeClass::communication) continue;
    for (int32_t o = a.op; o >= 0; o = rank.ops[static_cast<size_t>(o)].parent)
      if (rank.ops[static_cast<size_t>(o)].bytes >= 0) {
        a.bytes = rank.ops[static_cast<size_t>(o)].bytes;
        break;
      }
  }

  // Iterations: the GPU span of the work launched within each step's CPU span; work without a
  // launch falls in the step whose CPU span holds its start.
  std::sort(steps.begin(), steps.end(), [](const TraceIteration& a, const TraceIteration& b) {
    return a.cpu_start_ns < b.cpu_start_ns;
  });
  for (TraceIteration& s : steps) {
    s.gpu_start_ns = std::numeric_limits<int64_t>::max();
    s.gpu_end_ns = std::numeric_limits<int64_t>::min();
  }
  auto step_at = [&](int64_t t) -> TraceIteration* {
    auto it =
        std::upper_bound(steps.begin(), steps.end(), t,
                         [](int64_t v, const TraceIteration& s) { return v < s.cpu_start_ns; });
    if (it == steps.begin()) return nullptr;
    --it;
    return t <= it->cpu_end_ns ? &*it : nullptr;
  };
  for (const GpuActivity& a : rank.gpu) {
    const int64_t when =
        a.launch >= 0 ? rank.launches[static_cast<size_t>(a.launch)].start_ns : a.start_ns;
    if (TraceIteration* s = step_at(when)) {
      s->gpu_start_ns = std::min(s->gpu_start_ns, a.start_ns);
      s->gpu_end_ns = std::max(s->gpu_end_ns, a.end_ns);
    }
  }
  for (TraceIteration& s : steps)
    if (s.gpu_end_ns < s.gpu_start_ns) s.gpu_start_ns = s.gpu_end_ns = s.cpu_end_ns;
  std::sort(steps.begin(), steps.end(),
            [](const TraceIteration& a, const TraceIteration& b) { return a.number < b.number; });
  rank.iterations = std::move(steps);
}

}  // namespace ts
