#pragma once
// `tilescope import runner`: the CUPTI runner's results into the results database beside the
// host collector's. Each record carries its operator (a workload entry) and, for tilescope's own
// kernel, its mapping file, so the import rebuilds both from the results alone; with a graph it
// also stores a prediction for each. One run per implementation and timing scope, so that
// `correlate --run N` compares like with like. The whole file is read and every record resolved
// (and predicted) before the database is opened: bad input leaves the database as it was.
#include "trace/Importer.hpp"

namespace ts {

// Options (ImporterOption): `workload` (every record's operator must be in it, unchanged),
// `arch` (predictions on this graph are stored with the runs; the black boxes, cuBLAS and the
// vector kernels, are predicted with the mapper's choice), `budget` (mapper evaluations).
//
// Throws InputError at results:line for a record whose operator or mapping does not load, whose
// mapping does not fit its operator on the graph, or (with a workload) whose operator is not the
// workload's. The mapping is stored under the hash the plan gave it (the hash of its text when
// the plan was written), so that a later change of the canonical text does not orphan it.
class RunnerImporter final : public Importer {
 public:
  std::string name() const override { return "runner"; }
  std::string reads() const override {
    return "results of tilescope-cupti-runner (JSON lines), with their predictions";
  }
  std::vector<ImporterOption> options() const override;
  Sniff sniff(std::string_view first_line) const override;
  ImportResult import(const ImportRequest& request) const override;
};

}  // namespace ts
