#pragma once
// Why a rank's GPU sat idle in a window. Each stream's gaps (from the end of its work to the start
// of its next) are split by cause:
// - host-bound: the next work had not been launched when the stream went idle (its launch call
//   began after the gap opened): the GPU was waiting on the CPU;
// - waiting on another stream: the next work was already queued, and another stream of the rank
//   was running meanwhile (an event wait, a collective's dependency): the part of the gap that
//   other streams' work covers;
// - other: the rest (queued work held back by a synchronisation, a host copy, or a launch the
//   trace does not show).
// The device's idle time (no stream running, as in the temporal breakdown) is split the same way
// into host-bound and other.
#include <cstdint>
#include <vector>

#include "trace/RankTrace.hpp"

namespace ts {

struct StreamIdle {
  int64_t stream = 0;
  int64_t gaps = 0;
  int64_t host_bound_ns = 0;
  int64_t other_stream_ns = 0;
  int64_t other_ns = 0;
  int64_t idle_ns() const { return host_bound_ns + other_stream_ns + other_ns; }
};

struct IdleBreakdown {
  int rank = 0;
  TimeWindow window;
  // The device's idle time (equal to TemporalBreakdown::idle_ns) by cause.
  int64_t device_host_bound_ns = 0;
  int64_t device_other_ns = 0;
  std::vector<StreamIdle> streams;  // by stream id
  int64_t device_idle_ns() const { return device_host_bound_ns + device_other_ns; }
};

IdleBreakdown idle_breakdown(const RankTrace& rank, const TimeWindow& window);

}  // namespace ts
