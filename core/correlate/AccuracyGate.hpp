#pragma once
// Thresholds on agreement figures for CI (`--fail-if mape>0.10`): a gate is crossed when the
// figure is on the wrong side of its threshold, and the command then exits with status 1.
#include <string>
#include <vector>

#include "correlate/Statistics.hpp"

namespace ts {

struct AccuracyGate {
  std::string text;    // as written, for messages
  std::string metric;  // mape, log_rmse, pearson, spearman, kendall
  std::string op;      // >, >=, <, <=
  double threshold = 0;
};

// "METRIC OP NUMBER" (spaces allowed), e.g. "mape>0.10", "spearman < 0.95"; MAPE is a fraction
// or a percentage ("mape>10%"). Throws InputError (file "accuracy gate") naming the expression and
// what was expected.
AccuracyGate parse_accuracy_gate(const std::string& text);

double gate_figure(const AccuracyGate& gate, const AgreementStats& stats);
bool gate_crossed(const AccuracyGate& gate, const AgreementStats& stats);

// The gates that are crossed, each as "mape 0.1234 > 0.10".
std::vector<std::string> crossed_gates(const std::vector<AccuracyGate>& gates,
                                       const AgreementStats& stats);

}  // namespace ts
