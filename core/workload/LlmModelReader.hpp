#pragma once
// Reads a `kind: llm-model` file (docs/formats.md) into the operators of one forward pass
// (LlmModel.hpp). The pass's options (`phase`, `batch`, `context`, `tokens`) may be overridden,
// as `tilescope predict --batch --context` does.
#include <optional>

#include "common/YamlSource.hpp"
#include "workload/LlmModel.hpp"

namespace ts {

struct LlmPassOverride {
  std::optional<LlmPhase> phase;
  std::optional<int64_t> batch, context, tokens;
  bool any() const { return phase || batch || context || tokens; }
};

Workload read_llm_model(const YamlSource& src, const LlmPassOverride& override_pass);

}  // namespace ts
