#pragma once
// What a profile says happened, as a timeline: per rank, the GPU's streams (kernels, memory
// copies and sets, collectives), the host's CPU operators and the launch calls that tie the two,
// and the iterations (ProfilerStep#N). The import path (TraceEvents) keeps only what prediction
// needs, kernels under operators; this keeps time, for the analyses people open a trace for:
// where the time went, what overlapped, why the GPU sat idle (trace/TraceAnalysis).
//
// Times are integer nanoseconds on the rank's own clock (ranks are not aligned with each other;
// every analysis is per rank). Names are interned per rank: a million kernels of a few hundred
// names.
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace ts {

enum class GpuActivityKind : uint8_t { kernel, memcpy, memset };

// The class of GPU time in a temporal breakdown, by what the hardware was doing: a collective
// (an NCCL / RCCL / HCCL kernel) is communication, a copy or a set is memory, any other kernel is
// compute. As Holistic Trace Analysis (HTA) classifies kernels, by name and category.
enum class GpuTimeClass : uint8_t { compute, communication, memory };

std::string_view to_string(GpuActivityKind kind);
std::string_view to_string(GpuTimeClass time_class);

// The class of a GPU activity given its kind and name.
GpuTimeClass classify_gpu_activity(GpuActivityKind kind, std::string_view name);

struct GpuActivity {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t name = -1;  // into RankTrace::names
  int32_t device = 0;
  int64_t stream = 0;
  GpuActivityKind kind = GpuActivityKind::kernel;
  GpuTimeClass time_class = GpuTimeClass::compute;
  int32_t launch = -1;  // into RankTrace::launches; -1 when the trace ties it to none
  int32_t op = -1;      // the innermost CPU operator enclosing its launch, into RankTrace::ops
  // Bytes moved: a copy's or a set's size, a collective's message (elements times their size)
  // where the trace records it; -1 when not known.
  int64_t bytes = -1;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

struct CpuOperator {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t name = -1;
  int32_t parent = -1;  // the innermost operator enclosing it on its thread
  int64_t thread = 0;
  int64_t bytes = -1;  // a collective's message size (record_param_comms), -1 when none
};

// A runtime call that queued GPU work (cudaLaunchKernel, cudaMemcpyAsync, ...).
struct LaunchCall {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t name = -1;
  int64_t thread = 0;
  int64_t correlation = -1;
};

// One ProfilerStep#N: its CPU span, and the GPU time of the work launched inside it (from the
// first start to the last end of that work; empty when it launched nothing).
struct TraceIteration {
  int64_t number = 0;
  int64_t cpu_start_ns = 0;
  int64_t cpu_end_ns = 0;
  int64_t gpu_start_ns = 0;
  int64_t gpu_end_ns = 0;
};

struct RankTrace {
  int rank = 0;
  std::string file;
  std::string format;       // kineto, nsys
  std::string device_name;  // when the trace says
  std::vector<std::string> names;
  std::vector<GpuActivity> gpu;  // in start order
  std::vector<CpuOperator> ops;  // in start order
  std::vector<LaunchCall> launches;
  std::vector<TraceIteration> iterations;  // in step order
  std::vector<std::string> notes;          // what the reader could not tell

  const std::string& name_of(int32_t id) const;
  // The GPU time of the whole trace: first start to last end of any activity.
  int64_t gpu_start_ns() const;
  int64_t gpu_end_ns() const;
};

// A trace of one job: one RankTrace per rank, in rank order.
struct Trace {
  std::vector<RankTrace> ranks;
};

// The span of time an analysis covers on a rank: a step's GPU span (ProfilerStep#N), or the
// whole trace's, first GPU start to last GPU end.
struct TimeWindow {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t step = -1;  // the ProfilerStep number, -1 for the whole trace
  int64_t wall_ns() const { return end_ns - begin_ns; }
};

// Throws std::out_of_range naming the steps the rank has when it has no step `step`.
TimeWindow window_of(const RankTrace& rank, int64_t step = -1);

// Interning for readers.
class NameTable {
 public:
  explicit NameTable(std::vector<std::string>& names) : names_(names) {}
  int32_t intern(std::string_view name);

 private:
  std::vector<std::string>& names_;
  std::unordered_map<std::string, int32_t> index_;
  std::string key_;
};

// After a reader filled gpu, ops and launches (in any order): sorts them by start, ties each GPU
// activity to the innermost operator enclosing its launch, sets each operator's parent, and fills
// the iterations' GPU spans. `steps` are the ProfilerStep operators (number, cpu span).
void finish_rank_trace(RankTrace& rank, std::vector<TraceIteration> steps);

}  // namespace ts
