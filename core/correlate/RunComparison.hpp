#pragma once
// Two runs side by side (two databases, two runs of one, or two model versions): per-operator
// deltas of measured latency and prediction error, statistics of each on what both measured,
// and the operators that got worse first. The diff is an operation of the core, so that the
// CLI, the reports and the GUI show the same thing.
#include <string>
#include <vector>

#include "correlate/Correlation.hpp"

namespace ts {

struct OperatorDelta {
  std::string op;  // "suite/name shape [mapping, scope]", what pairs the two runs' points
  const ComparedPoint* before = nullptr;
  const ComparedPoint* after = nullptr;
  // ln(predicted / measured) in each run, and how much further from 0 it moved (> 0: worse).
  double log_error_before = 0, log_error_after = 0, worse_by = 0;
  double measured_change = 0;   // after / before - 1
  double predicted_change = 0;  // after / before - 1
};

struct RunComparison {
  // On the points both runs have: with none in common every figure is none (n/a), never 0.
  AgreementStats before, after;
  std::vector<OperatorDelta> matched;  // worst change first
  std::vector<std::string> only_before, only_after;
};

// Points pair by suite, operator, shape, mapping and timing scope (the first of duplicates is
// taken). The points must outlive the result.
RunComparison compare_runs(const std::vector<ComparedPoint>& before,
                           const std::vector<ComparedPoint>& after);

// What an empty comparison's figures are over, for a gate that cannot be checked on them.
inline constexpr const char* kNoOperatorInCommon =
    "no operators: the runs have no operator in common";

// One line for a comparison with no operator in common, naming both sides ("no operator in
// common between BEFORE (N operators) and AFTER (M operators): the comparison's figures are
// n/a"); empty when they have one.
std::string nothing_in_common_text(const RunComparison& comparison, const std::string& before,
                                   const std::string& after);

}  // namespace ts
