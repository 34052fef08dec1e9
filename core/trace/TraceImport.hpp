#pragma once
// The step every trace reader shares (Kineto JSON, Nsight Systems SQLite, msprof CSV): a reader
// fills TraceEvents, and import_trace ties each kernel to the operator that launched it, turns
// that operator's name, shapes and data types into a tilescope operator, stores one measurement
// per distinct (operator, kernel name) as one run in one transaction, and writes the workload of
// what ran. What it cannot use (kernels of operators without shapes, of operators tilescope does
// not model, kernels that match nothing) is counted and reported in ImportResult::notes, never
// dropped silently. docs/traces.md describes the whole path.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "trace/Importer.hpp"
#include "trace/KernelNameRules.hpp"
#include "trace/TraceEvents.hpp"
#include "trace/TraceKernelResolution.hpp"
#include "trace/TraceTimeCoverage.hpp"
#include "workload/Operator.hpp"

namespace ts {

// Told how far an import is (0..1 of the stage named); returns false to cancel it, which throws
// TraceImportCancelled before anything is stored.
using TraceImportProgress = std::function<bool(std::string_view stage, double fraction)>;

class TraceImportCancelled : public std::runtime_error {
 public:
  TraceImportCancelled() : std::runtime_error("import cancelled") {}
};

// A kernel as a timeline draws it (the GUI's trace tracks): when it ran, where, and the
// tilescope operator whose measurement it joined, so that a prediction can be drawn beside it.
struct TraceKernelSpan {
  std::string kernel;
  std::string op_name;  // the stored operator's name; empty: not stored (the notes say why)
  double start_ns = 0;  // on the trace's clock
  double duration_ns = 0;
  int device = 0;
  int64_t stream = -1;
};

// Every kernel of `events`, in the trace's order, named by the operator `resolved` tied it to as
// import_trace stores that operator under `suite`: the spans import_trace appends, and what a
// face that reads a stored run's trace again builds (the GUI's Timeline of a run imported by the
// CLI), so that both name the operators the run's measurements name.
std::vector<TraceKernelSpan> trace_kernel_spans(const TraceEvents& events,
                                                const ResolvedTrace& resolved,
                                                std::string_view suite);

// The options every trace importer offers (`--suite`, `--workload-out`, `--kernel-rules`,
// `--implementation-prefix` ...): a reader's options() returns these plus its own.
std::vector<ImporterOption> trace_import_options();

// The kernel-name rules an import uses: the request's `--kernel-rules` files (comma separated)
// and `--profile NAME`'s kernel_rules, first, then the built-in rules (KernelNameRules.hpp).
KernelNameRules kernel_rules_for(const ImportRequest& request);

// What an import stores and writes, worked out before the database is opened: everything
// import_trace does but the writing (what the fuzz targets check an import against).
struct PreparedTraceImport {
  std::string suite;  // the request's --suite, or the file's name without its extensions
  ResolvedTrace resolved;
  // One per distinct (operator, kernel names), in the order they are stored.
  std::vector<Measurement> measurements;
  // The workload of what ran (written with --workload-out); none when no kernel has an operator
  // with shapes.
  std::optional<Workload> workload;
  TraceTimeCoverage coverage;
  std::vector<std::string> notes;  // the reader's and the matching's
  std::vector<std::string> facts;
  RunStart run;  // the run as it is begun: collector, suite, settings, device
};

// Matches and converts `events` (resolve_trace may tie kernels to operators in it). Throws
// InputError at the operator's record for an operator no workload may hold
// (workload/WorkloadLimits.hpp). With `spans`, every kernel is appended there, in the trace's
// order.
PreparedTraceImport prepare_trace_import(TraceEvents& events, const ImportRequest& request,
                                         const TraceImportProgress& progress = {},
                                         std::vector<TraceKernelSpan>* spans = nullptr);

// The whole shared step: match, convert, store (one ResultStore::write_all), then, when the
// request has `workload-out`, write the workload file (written whole under a temporary name
// and renamed once the store has committed, so a failure leaves neither). Kernels that lack
// shapes or a match are notes, never an error: a trace without shapes imports as a run without
// measurements and says why.
// With `spans`, every kernel of the trace is also appended there, in the trace's order.
ImportResult import_trace(TraceEvents events, const ImportRequest& request,
                          const TraceImportProgress& progress = {},
                          std::vector<TraceKernelSpan>* spans = nullptr);

}  // namespace ts
