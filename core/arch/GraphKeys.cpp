#include "arch/GraphKeys.hpp"

#include "workload/OperatorType.hpp"

namespace ts {

std::vector<std::string> mapping_template_keys() {
  std::vector<std::string> keys{"matmul", "elementwise", "reduction", "lookup"};
  for (const std::string& type : operator_type_names()) keys.push_back(type);
  return keys;
}

std::vector<std::string> launch_overhead_keys() { return operator_type_names(); }

}  // namespace ts
