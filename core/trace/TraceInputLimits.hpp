#pragma once
// What the trace and measurement readers accept, in one place (docs/formats.md, "Limits of
// trace and measurement files"): how many bytes a reader reads, how many rows it takes from an
// SQLite export, and which times it stores. A reader checks each limit before it reads past it
// and refuses at the line or row that breaks it (an InputError, exit 2), so that an endless
// stream (/dev/zero, a pipe that never ends), a hostile export (a view that never ends) or a
// time that cannot be stored (a negative duration, 1e306 us) is one clear message, never memory
// that grows without limit or a database error far from the file. The sizes of YAML and JSON
// inputs, workloads and sweeps are common/WorkLimits.hpp's.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/BoundedText.hpp"

namespace ts {

// The longest duration a trace or a runner record may give: 1e15 ns, a million seconds (11.6
// days). A kernel, an operator or an NVTX range that long is a broken file.
inline constexpr double kTraceDurationLimitNs = 1e15;
// The largest timestamp (either sign): 4e18 ns (127 years), so that a start plus a duration,
// and the difference of two timestamps, stay within 64 bits.
inline constexpr double kTraceTimestampLimitNs = 4e18;

// The most bytes a reader that holds its file whole reads: CSV tables (measurements, msprof's
// op_summary) and runner results. Their record limits (kCsvRowLimit, kRunnerRecordLimit) come
// first for real files; this one bounds a file of few, endless lines (/dev/zero).
inline constexpr uint64_t kWholeFileByteLimit = uint64_t{1} << 30;  // 1 GiB
// The most bytes of text a streamed Chrome trace (Kineto) may hold, after gzip: traces of tens
// of GB are read in a bounded buffer, so this bounds time, not memory (a gzip bomb).
inline constexpr uint64_t kChromeTraceTextByteLimit = uint64_t{64} << 30;  // 64 GiB
// The longest single value of a Chrome trace (one event, or a value of the root object other
// than traceEvents): the buffer holds one whole, so this bounds its memory.
inline constexpr size_t kChromeTraceValueByteLimit = size_t{256} << 20;  // 256 MiB
// The most rows read from any one table of an Nsight Systems export (kernels, launches, NVTX
// ranges, strings): a day-long profile of a training job has a few million kernels.
inline constexpr int64_t kNsysRowLimit = 20'000'000;

// The section of docs/formats.md that lists these limits, named in the readers' messages.
inline constexpr std::string_view kTraceLimitsSection = "Limits of trace and measurement files";

// The problem with a duration or a timestamp in ns, for a message at the reader's line or row
// ("`dur` 1e+309 ns: expected a finite duration in [0, 1e+15] ns"); none when it is fine.
// `what` names the value as the file does.
std::optional<std::string> duration_problem(double ns, std::string_view what);
std::optional<std::string> timestamp_problem(double ns, std::string_view what);

}  // namespace ts
