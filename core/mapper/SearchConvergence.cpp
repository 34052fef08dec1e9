#include "mapper/SearchConvergence.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ts {

void UnconvergedSearches::note(const std::string& op_name, bool searched, bool converged) {
  if (!searched || converged) return;
  if (std::find(operators.begin(), operators.end(), op_name) == operators.end())
    operators.push_back(op_name);
}

void UnconvergedSearches::note(const Prediction& p) {
  note(p.op_name, p.searched, p.search_converged);
}

std::string unconverged_text(const std::vector<std::string>& operators, uint64_t budget,
                             const std::string& raise) {
  if (operators.empty()) return "";
  std::string names;
  for (const std::string& op : operators) names += (names.empty() ? "'" : ", '") + op + "'";
  // A search cut short by its budget may have missed a faster mapping.
  const std::string count =
      operators.size() == 1 ? "" : fmt::format("{} operators, ", operators.size());
  return fmt::format(
      "the mapper's search for {}{} did not converge: still improving when the budget of {} "
      "evaluations per operator ran out; a larger budget ({} {}) may find faster mappings",
      count, names, budget, raise, budget * 4);
}

std::string unconverged_warning(const std::vector<std::string>& operators, uint64_t budget,
                                const std::string& raise) {
  return operators.empty() ? "" : "warning: " + unconverged_text(operators, budget, raise) + "\n";
}

}  // namespace ts
