#pragma once
// `tilescope import runner`: the CUPTI runner's results into the results database beside the
// host collector's. Each record carries its operator (a workload entry) and, for tilescope's own
// kernel, its mapping file, so the import rebuilds both from the results alone; with a graph it
// also stores a prediction for each. One run per implementation and timing scope, so that
// `correlate --run N` compares like with like. The whole file is read and every record resolved
// (and predicted) before the database is opened: bad input leaves the database as it was.
#include <cstdint>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"
#include "measure/MeasurementRecord.hpp"
#include "trace/RunnerResults.hpp"

namespace ts {

struct RunnerImportOptions {
  std::string results_path;
  std::string db_path;
  std::string workload_file;  // optional: every record's operator must be in it, unchanged
  std::string arch_file;      // optional: predictions on this graph are stored with the runs
  MapperOptions mapper;       // for the black boxes (cuBLAS, vector kernels): the mapper's choice
  std::string command_line;
  std::string tool_version;
};

struct ImportedRun {
  int64_t id = 0;
  std::string implementation;
  TimingScope scope = TimingScope::device;
  size_t measurements = 0;
  size_t unchecked = 0;
};

struct RunnerImport {
  std::vector<ImportedRun> runs;
  size_t predictions = 0;
  std::vector<std::string> notes;  // error records of the runner: jobs left unmeasured
};

// Throws InputError at results:line for a record whose operator or mapping does not load, whose
// mapping does not fit its operator on the graph, or (with a workload) whose operator is not the
// workload's. The mapping is stored under the hash the plan gave it (the hash of its text when
// the plan was written), so that a later change of the canonical text does not orphan it.
RunnerImport import_runner_results(const RunnerImportOptions& options);

}  // namespace ts
