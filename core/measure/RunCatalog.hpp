#pragma once
// The runs of one results database as a face lists them: grouped by the device they ran on, each
// named so that it reads apart from the others, and the one to open first. One rule for the GUI's
// Device and Run boxes and any other face, so that a run and its device are called the same
// everywhere and no face groups or names them by a rule of its own.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/MeasurementRecord.hpp"

namespace ts {

// A row of the devices table: runs on the same name, kind, graph and properties share one.
struct CatalogDevice {
  DeviceInfo device;
  // "NAME (KIND)"; when another device of the catalog reads the same (another graph or other
  // properties), " #i" follows, i its place among the catalog's devices from 1.
  std::string display_name;
};

struct CatalogRun {
  RunInfo run;
  size_t device = 0;  // into RunCatalog::devices
  // "run ID: LABEL, M measurements (STATUS)", LABEL from run_labels (measure/RunLabels).
  std::string label;
  // The run's device names no graph (an imported trace): it has no stored predictions, so its
  // measurements are predicted on the graph open in the face.
  bool predicted_on_open_graph = false;
  // The workload suite file the run recorded (RunSettings::workload_file); empty when none.
  std::string workload_file;
};

struct RunCatalog {
  std::vector<CatalogDevice> devices;  // in the order of their first runs
  std::vector<CatalogRun> runs;        // in the order given (the store's: oldest first)

  // Indices into `runs` of the runs on `device`, oldest first.
  std::vector<size_t> runs_of(size_t device) const;
  const CatalogRun* find(int64_t run_id) const;
  // Index into `runs` of the run a face opens first: most_interesting_run for the graph
  // `open_arch_hash` (empty: no graph open), else the newest run; none when there are no runs.
  std::optional<size_t> run_to_open(const std::string& open_arch_hash) const;
};

RunCatalog run_catalog(const std::vector<RunInfo>& runs);

}  // namespace ts
