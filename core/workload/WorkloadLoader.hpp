#pragma once
// Reads a `kind: workload` file (docs/formats.md): built-in operator types through the
// builders, `einsum` operators as written. Errors are InputError at the offending node or key.
#include <cstddef>
#include <string>

#include "workload/LlmModelReader.hpp"
#include "workload/Operator.hpp"

namespace ts {

// The most operators a workload may list, at the first one past it. Bundled suites list tens and
// a whole model's layers thousands; validating or predicting a million takes minutes and GiBs.
inline constexpr size_t kWorkloadOperatorLimit = 200'000;

// A `kind: workload` file, or a `kind: llm-model` file built into its forward pass
// (LlmModelReader.hpp) with `pass` overriding the file's phase, batch, context and tokens.
Workload load_workload(const std::string& path);
Workload load_workload(const std::string& path, const LlmPassOverride& pass);
Workload parse_workload(const std::string& text, const std::string& file_name);

}  // namespace ts
