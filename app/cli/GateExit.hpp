#pragma once
// The exit status of a command's --fail-if gates, the same for `correlate` and `report`: 0 when
// every gate passed; 1 when one is crossed, each said on stderr ("fail-if: mape 0.3130 > 0.1");
// and when a gate could not be checked (its figure has no value) an InputError naming --fail-if
// and why, in one line (exit status 2): such a gate must never pass silently.
#include <iostream>
#include <vector>

#include "OptionValues.hpp"
#include "correlate/AccuracyGate.hpp"

namespace ts::cli {

inline int gate_exit_status(const std::vector<GateVerdict>& verdicts) {
  read_option("accuracy gate", "--fail-if", [&] {
    refuse_unchecked_gates(verdicts);
    return 0;
  });
  int status = 0;
  for (const GateVerdict& v : verdicts)
    if (v.result == GateResult::crossed) {
      std::cerr << "fail-if: " << crossed_gate_text(v) << "\n";
      status = 1;
    }
  return status;
}

}  // namespace ts::cli
