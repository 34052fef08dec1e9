#pragma once
// Which operators' mapper searches ran out of budget while still improving, gathered and said
// the same way by every command that runs the mapper (predict, correlate, fit, report,
// simulate, measure --plan): one warning on stderr naming them and a larger budget to try.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/Prediction.hpp"

namespace ts {

struct UnconvergedSearches {
  std::vector<std::string> operators;  // distinct names, in the order first met

  // Notes the operator when the mapper chose its mapping and its search did not converge.
  void note(const Prediction& p);
  void note(const std::string& op_name, bool searched, bool converged);
  bool empty() const { return operators.empty(); }
};

// The operators whose search did not converge within `budget` evaluations each, and `raise`
// (how the command's user gives a larger budget, e.g. "--budget") with four times the budget;
// "" when `operators` is empty. For a report's text.
std::string unconverged_text(const std::vector<std::string>& operators, uint64_t budget,
                             const std::string& raise = "--budget");
// The same as one stderr line: "warning: " and the text and a newline ("" when none).
std::string unconverged_warning(const std::vector<std::string>& operators, uint64_t budget,
                                const std::string& raise = "--budget");

}  // namespace ts
