#pragma once
// One trace file imported by its format's reader and the shared step, with progress and cancel,
// keeping its kernels for a timeline: what the GUI's File > Import trace runs off its thread.
// The CLI's `tilescope import FORMAT` reaches the same readers through the Importer registry.
#include <string>
#include <vector>

#include "trace/Importer.hpp"
#include "trace/TraceImport.hpp"

namespace ts {

struct TraceFileImport {
  ImportResult result;
  std::vector<TraceKernelSpan> kernels;  // every kernel of the trace, in its order
};

// `format`: "kineto", "nsys" or "msprof" (trace_format_of). Throws InputError for bad input,
// TraceImportCancelled when `progress` returns false; either way the store is as it was (one
// transaction), and std::invalid_argument for another format.
TraceFileImport import_trace_file(const std::string& format, const ImportRequest& request,
                                  const TraceImportProgress& progress);

}  // namespace ts
