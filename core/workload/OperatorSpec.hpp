#pragma once
// An operator as one line of a workload file, so that a stored measurement can rebuild the
// operator it measured: `{name: qkv, type: gemm, M: 512, N: 768, K: 768, dtype: fp32}`.
#include <string>

#include "workload/Operator.hpp"

namespace ts {

std::string operator_spec(const Operator& op);
// Throws InputError (located in `file_name`) when the text is not an operator entry.
Operator operator_from_spec(const std::string& spec, const std::string& file_name);

}  // namespace ts
