#pragma once
// Reads a `kind: workload` file (docs/formats.md): built-in operator types through the
// builders, `einsum` operators as written. Errors are InputError at the offending node or key.
#include <string>

#include "workload/Operator.hpp"

namespace ts {

Workload load_workload(const std::string& path);
Workload parse_workload(const std::string& text, const std::string& file_name);

}  // namespace ts
