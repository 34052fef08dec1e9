#pragma once
// Which NVTX range encloses a moment on a thread: the operator that was running on the host when
// a kernel was launched, and the range that encloses another range. Nsight Systems exports have
// no indexes and ranges number in the hundreds of thousands, so this is one sweep over ranges
// and moments sorted by time, not a search per kernel.
#include <cstdint>
#include <optional>
#include <vector>

namespace ts {

struct NsysRange {
  int64_t thread = 0;  // the ranges of one thread nest; another thread's never enclose
  int64_t start_ns = 0;
  int64_t end_ns = 0;  // past the range: [start, end)
};

struct NsysMoment {
  int64_t thread = 0;
  int64_t time_ns = 0;
};

// For each moment, the innermost range of its thread that encloses it: the one that started
// last among those with start <= time < end (index into `ranges`); none when no range does.
// Push/pop ranges nest, so "started last and not yet ended" is the innermost; for ranges that
// only overlap (start/end ranges), it is the latest one begun.
std::vector<std::optional<size_t>> innermost_enclosing(const std::vector<NsysRange>& ranges,
                                                       const std::vector<NsysMoment>& moments);

// For each range, the innermost other range of its thread that encloses its start and does not
// end before it does: its parent operator. A range that starts with its parent at the same
// moment is inside the longer one.
std::vector<std::optional<size_t>> enclosing_ranges(const std::vector<NsysRange>& ranges);

}  // namespace ts
