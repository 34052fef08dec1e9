#include "workload/WorkloadWriter.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "workload/OperatorSpec.hpp"

namespace ts {
namespace {

// A scalar as YAML reads it back unchanged: quoted, with the two characters that need escaping
// in a double-quoted scalar escaped.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

std::string workload_yaml(const Workload& workload) {
  std::string out = "version: 1\nkind: workload\n";
  out += "name: " + quoted(workload.name) + "\n";
  if (!workload.description.empty()) out += "description: " + quoted(workload.description) + "\n";
  if (workload.batch > 0) out += fmt::format("batch: {}\n", workload.batch);
  if (workload.seq_len > 0) out += fmt::format("seq_len: {}\n", workload.seq_len);
  out += "operators:\n";
  for (const Operator& op : workload.operators) {
    std::string spec = operator_spec(op);
    if (spec.empty())
      throw std::invalid_argument("operator '" + op.name +
                                  "' has no one-line workload entry (an einsum operator)");
    if (op.count != 1) {
      spec.pop_back();  // the closing brace of the flow mapping
      spec += fmt::format(", count: {}}}", op.count);
    }
    out += "  - " + spec + "\n";
  }
  return out;
}

}  // namespace ts
