#pragma once
// `tilescope predict --format json` (schema_version 1): the graph, the workload and every
// operator's prediction. Owned by the core so that the CLI, the GUI and scripts agree on it.
#include <string>
#include <vector>

#include "analysis/ForwardPass.hpp"
#include "analysis/Prediction.hpp"

namespace ts {

// The document as text, indented by two spaces; `explain` adds each operator's annotated tree,
// `pass` a `forward_pass` object (a workload built from a `kind: llm-model` file).
std::string prediction_json(const std::vector<Prediction>& predictions,
                            const ArchitectureGraph& graph, const std::string& workload_name,
                            bool explain, const ForwardPass* pass = nullptr);

}  // namespace ts
