#pragma once
// PyTorch profiler / Kineto traces (Chrome trace JSON, plain or gzip): the GPU kernels, the CPU
// operators (with input shapes and dtypes when recorded with record_shapes) and what ties them
// (a kernel's `correlation` id to its launch's, or `ac2g` / `async_cpu_to_gpu` flow events),
// read as TraceEvents for the shared import step (TraceImport). docs/traces.md lists the layouts
// of the PyTorch versions it reads.
//
// The file is streamed through simdjson's On-Demand API in batches of events (ChromeTraceStream),
// never held whole: what is kept per event is a record of a few numbers, kernel names and
// operator signatures (name, shapes, dtypes) are interned, and operators that enclose no kernel's
// launch are dropped once the file is read.
// The repeats of an operator (same signature under the same parent, each step of a training
// loop) become one TraceOperator with `occurrences`, so that memory follows the distinct
// operators of a model, not the length of the trace.
#include <string>
#include <string_view>

#include "trace/TraceEvents.hpp"
#include "trace/TraceImport.hpp"

namespace ts {

// Throws InputError at the line and column where the JSON breaks (a truncated file names the
// byte offset it ends at) or where an event lacks what it needs (a kernel without `dur`).
TraceEvents read_kineto_trace(const std::string& path, const TraceImportProgress& progress = {});

// `tilescope import kineto trace.json[.gz]`: read_kineto_trace, then import_trace.
class KinetoImporter final : public Importer {
 public:
  std::string name() const override { return "kineto"; }
  std::string reads() const override {
    return "a PyTorch profiler (Kineto) trace, Chrome trace JSON, plain or .gz";
  }
  std::vector<ImporterOption> options() const override { return trace_import_options(); }
  Sniff sniff(std::string_view first_line) const override;
  ImportResult import(const ImportRequest& request) const override;
};

}  // namespace ts
