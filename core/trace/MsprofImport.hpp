#pragma once
// `tilescope import msprof op_summary.csv`: an Ascend msprof operator summary
// (trace/MsprofSummary), each task an operator with its one kernel, through the step every trace
// import shares (trace/TraceImport): stored as one run, and with --workload-out the workload of
// what ran.
#include "trace/Importer.hpp"

namespace ts {

// The request as an msprof import runs it: with the Ascend profile's kernel rules when the
// request names no profile and the profile is installed (the GUI's import calls it too).
ImportRequest msprof_import_request(ImportRequest request);

// Options: those of every trace import (trace_import_options); `profile` defaults to `ascend`,
// whose kernel rules (plugins/ascend/kernel-rules.yaml) say what CANN operator types compute.
class MsprofImporter final : public Importer {
 public:
  std::string name() const override { return "msprof"; }
  std::string reads() const override {
    return "Ascend msprof operator summaries (op_summary_*.csv)";
  }
  std::vector<ImporterOption> options() const override;
  // Sure of a header with an operator name and a task duration; maybe for one that names other
  // op_summary columns (a summary with renamed columns, refused on import naming them).
  Sniff sniff(std::string_view first_line) const override;
  ImportResult import(const ImportRequest& request) const override;
};

}  // namespace ts
