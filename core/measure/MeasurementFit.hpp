#pragma once
// Whether the measurements a face shows beside the open graph and workload fit them: they fill
// the "measured" and "error" columns of the workload's operators, and each error compares a
// measurement with a prediction on the graph it was measured on. When they do not, the face says
// why (issue 22: Ascend + BERT opened over a host database left blank columns unexplained); the
// case is decided here, the words are the face's.
#include <cstddef>
#include <string>

namespace ts {

enum class MeasurementFit {
  fits,  // nothing to say: they fit, or nothing is shown, or no workload is open
  // None of the measurements is an operator of the open workload (a run of another suite):
  // "measured" and "error" stay blank.
  other_workload,
  // The run's predictions were stored for another graph than the open one: its errors compare
  // the measurements with the open graph's predictions, not with the graph it ran on.
  other_graph,
};

// What a face shows, in plain values.
struct ShownMeasurements {
  size_t measurements = 0;        // of the shown run or CSV
  size_t operators_measured = 0;  // operators of the open workload that one of them is of
  bool workload_open = false;
  // The graph the shown run's predictions were stored for; empty for a CSV or a run whose device
  // names no graph (its measurements are predicted on the open graph).
  std::string run_arch_hash;
  std::string open_arch_hash;  // the open graph as loaded (hash_text); empty: none open
};

MeasurementFit measurement_fit(const ShownMeasurements& shown);

}  // namespace ts
