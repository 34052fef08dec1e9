#pragma once
// Reads the LLM operator types of a workload file (LlmOperators.hpp, docs/formats.md "LLM
// operators") into their builders, failing at the key that is wrong.
#include <string>

#include "common/YamlSource.hpp"
#include "workload/Operator.hpp"

namespace ts {

// `type` is one of rmsnorm .. prefill_attention (is_llm_operator).
Operator read_llm_operator(const YamlSource& src, const YAML::Node& node, const std::string& name,
                           OperatorType type, DataType dtype, const std::string& label);
bool is_llm_operator(OperatorType type);

}  // namespace ts
