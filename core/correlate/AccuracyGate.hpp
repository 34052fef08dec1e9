#pragma once
// Thresholds on agreement figures for CI (`--fail-if mape>0.10`): a gate is crossed when the
// figure is on the wrong side of its threshold, and the command then exits with status 1. A gate
// whose figure has no value (no points, a comparison with nothing in common, a correlation of a
// constant side) is not checked, and never passes: the command exits with status 2 saying why.
#include <optional>
#include <string>
#include <vector>

#include "correlate/Statistics.hpp"

namespace ts {

struct AccuracyGate {
  std::string text;      // as written, for messages
  std::string metric;    // mape, log_rmse, pearson, spearman, kendall
  std::string op;        // >, >=, <, <=
  double threshold = 0;  // finite: a NaN threshold could never be crossed
};

// "METRIC OP NUMBER" (spaces allowed), e.g. "mape>0.10", "spearman < 0.95"; MAPE is a fraction
// or a percentage ("mape>10%"). The number must be finite (nan and inf are refused). Throws
// InputError (file "accuracy gate") naming the expression and what was expected.
AccuracyGate parse_accuracy_gate(const std::string& text);

std::optional<double> gate_figure(const AccuracyGate& gate, const AgreementStats& stats);

enum class GateResult { passed, crossed, not_checked };
// "passed", "crossed", "not_checked" (as JSON writes it).
const char* gate_result_text(GateResult result);

struct GateVerdict {
  AccuracyGate gate;
  std::optional<double> figure;
  GateResult result = GateResult::not_checked;
  std::string why_not_checked;  // "mape over no points", ...; empty unless not_checked
};

// `no_points`: what an empty set of figures is, in the caller's words, for the reason of a gate
// that cannot be checked ("no points", or for a comparison "no operators: the runs have no
// operator in common").
GateVerdict judge_gate(const AccuracyGate& gate, const AgreementStats& stats,
                       const std::string& no_points = "no points");
std::vector<GateVerdict> judge_gates(const std::vector<AccuracyGate>& gates,
                                     const AgreementStats& stats,
                                     const std::string& no_points = "no points");

// A crossed gate as the CLI says it: "mape 0.1234 > 0.1".
std::string crossed_gate_text(const GateVerdict& verdict);

// Throws InputError (file "accuracy gate") for the first gate that was not checked, in one line:
// "'mape>0.1' not checked: mape over no points" (and how many more were not); returns when every
// gate was checked.
void refuse_unchecked_gates(const std::vector<GateVerdict>& verdicts);

}  // namespace ts
