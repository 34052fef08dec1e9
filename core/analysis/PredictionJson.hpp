#pragma once
// `tilescope predict --format json` (schema_version 1): the graph, the workload and every
// operator's prediction. Owned by the core so that the CLI, the GUI and scripts agree on it.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/ForwardPass.hpp"
#include "analysis/Prediction.hpp"

namespace ts {

// The document as text, indented by two spaces; `explain` adds each operator's annotated tree,
// `pass` a `forward_pass` object (a workload built from a `kind: llm-model` file). `counts`,
// per prediction (none: 1 each), are how many times each operator runs (`count:` in a workload
// written from a trace): each operator says its `count`, and `total_us` sums
// count x (latency_us + launch_overhead_us), the total the table prints.
std::string prediction_json(const std::vector<Prediction>& predictions,
                            const ArchitectureGraph& graph, const std::string& workload_name,
                            bool explain, const ForwardPass* pass = nullptr,
                            const std::vector<int64_t>& counts = {});

}  // namespace ts
