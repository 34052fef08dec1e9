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
// A model file that names no pass (hyper-parameters only, what a suite's `model:` names),
// checked as read_llm_model checks it.
LlmModel read_llm_hyper_parameters(const YamlSource& src);

}  // namespace ts
