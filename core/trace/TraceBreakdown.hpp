#pragma once
// Where a rank's GPU time went in a window (TimeWindow), as Holistic Trace Analysis reports it:
// - the temporal breakdown: each instant of the window counted once, as compute if any compute
//   kernel ran, else communication if a collective ran, else memory if a copy or a set ran, else
//   idle; so the four add up to the window's wall time exactly;
// - communication-computation overlap: how much of the collectives' time ran under compute;
// - the kernel breakdown: every kernel name's count and time, the totals per class, and the
//   time per CPU operator that launched it.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "trace/RankTrace.hpp"

namespace ts {

struct TemporalBreakdown {
  int rank = 0;
  TimeWindow window;
  int64_t compute_ns = 0;
  int64_t communication_ns = 0;  // not under compute
  int64_t memory_ns = 0;         // under neither compute nor communication
  int64_t idle_ns = 0;           // no GPU activity at all
  int64_t wall_ns() const { return window.wall_ns(); }
};

struct CommunicationOverlap {
  int rank = 0;
  int64_t communication_ns = 0;  // the union of the collectives' time
  int64_t compute_ns = 0;        // the union of compute kernels' time
  int64_t overlapped_ns = 0;     // communication while compute ran
  // overlapped / communication; 0 when there is no communication.
  double fraction() const {
    return communication_ns > 0
               ? static_cast<double>(overlapped_ns) / static_cast<double>(communication_ns)
               : 0.0;
  }
};

TemporalBreakdown temporal_breakdown(const RankTrace& rank, const TimeWindow& window);
CommunicationOverlap communication_overlap(const RankTrace& rank, const TimeWindow& window);

struct KernelTime {
  std::string name;
  GpuActivityKind kind = GpuActivityKind::kernel;
  GpuTimeClass time_class = GpuTimeClass::compute;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t bytes = 0;  // summed where known (copies, sets, collectives)
};

// The CPU operator that launched GPU work (the innermost one around the launch; ProfilerStep#N
// counts as one name), with the GPU time of that work.
struct OperatorGpuTime {
  std::string name;
  int64_t kernels = 0;
  int64_t total_ns = 0;
};

struct KernelBreakdown {
  int rank = 0;
  TimeWindow window;
  std::vector<KernelTime> kernels;           // by total time, longest first
  std::array<int64_t, 3> class_ns{0, 0, 0};  // by GpuTimeClass: summed durations, not a union
  std::vector<OperatorGpuTime> operators;    // by total time, longest first
  int64_t total_ns() const { return class_ns[0] + class_ns[1] + class_ns[2]; }
};

// GPU work starting in the window.
KernelBreakdown kernel_breakdown(const RankTrace& rank, const TimeWindow& window);

// The operator a GPU activity is counted under: its launching operator's name, ProfilerStep#N as
// "ProfilerStep", and "(no operator) <kernel>" where the trace ties it to none.
std::string operator_name_of(const RankTrace& rank, const GpuActivity& activity);

}  // namespace ts
