#pragma once
// The trace file a stored run was imported from (`tilescope import kineto T.json.gz --db X`, or
// File > Import trace), found again and read for its kernels: the database keeps per-operator
// measurements, not kernel times, so the Timeline of a run opened from a database needs its
// trace. The file is read with the import's own readers and resolved with the import's rules, and
// its kernels are named by core's trace_kernel_spans under the run's suite, as the import named
// them, so that each kernel meets its operator's prediction. Nothing is written to the database.
#include <string>
#include <vector>

#include "measure/MeasurementRecord.hpp"
#include "trace/TraceImport.hpp"

namespace ts::gui {

struct RecordedTrace {
  // "kineto", "nsys" or "msprof"; empty when the run is not an imported trace or recorded no
  // file (then nothing else is set).
  std::string format;
  std::string recorded;            // the path the import recorded, relative to where it ran
  std::vector<std::string> tried;  // where it was looked for: as recorded, then beside the database
  std::string path;                // the first of `tried` that is a file; empty: none is
  // `file` is `path`; the options of the recorded command line that change how a kernel is
  // resolved (--kernel-rules, --profile, --dtype), its files found as the trace is.
  ImportRequest request;
  std::string suite;  // the run's workload: the suite its operators are stored under
};

// Where `run`'s trace is, for a run of the results database `database`.
RecordedTrace recorded_trace(const RunInfo& run, const std::string& database);

// Every kernel of the trace at `trace.path`, in its order. Throws InputError when the file no
// longer reads as the import read it, TraceImportCancelled when `progress` returns false.
std::vector<TraceKernelSpan> read_recorded_trace(const RecordedTrace& trace,
                                                 const TraceImportProgress& progress);

}  // namespace ts::gui
