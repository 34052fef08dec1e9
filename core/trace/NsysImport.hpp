#pragma once
// `tilescope import nsys report.sqlite`: an Nsight Systems SQLite export (trace/NsysExport)
// through the step every trace import shares (trace/TraceImport): its kernels tied to the NVTX
// ranges around their launches, stored as one run, and with --workload-out the workload of what
// ran.
#include "trace/Importer.hpp"
#include "trace/TraceEvents.hpp"

namespace ts {

// read_nsys_export with the request's `dtype` given to the NVTX operators' tensors: what
// NsysImporter::import hands the shared step (the GUI's import calls it too).
TraceEvents read_nsys_for_import(const ImportRequest& request);

// Options: those of every trace import (trace_import_options), and `dtype`: the data type of
// the NVTX operators' tensors, which NVTX ranges do not record (default fp16).
class NsysImporter final : public Importer {
 public:
  std::string name() const override { return "nsys"; }
  std::string reads() const override {
    return "Nsight Systems SQLite exports (nsys export --type sqlite), 2022 onward";
  }
  std::vector<ImporterOption> options() const override;
  // Any SQLite file: what it holds is checked on import, naming a missing table.
  Sniff sniff(std::string_view first_line) const override;
  ImportResult import(const ImportRequest& request) const override;
};

}  // namespace ts
