#pragma once
// Time per token where the CLI is not the reader: the report's summary and the GUI's Operators
// page say it for a decode step, from the same forward_pass that `tilescope predict` prints.
#include <optional>
#include <string>
#include <vector>

#include "analysis/ForwardPass.hpp"

namespace ts {

class ArchitectureGraph;

// The graph's largest memory (HBM, DRAM): off-chip traffic is what goes in and out of it.
std::string main_memory_of(const ArchitectureGraph& graph);

// The forward pass of a decode step (Workload::phase "decode"), from the predictions of
// `workload.operators` in their order; nullopt for any other workload.
std::optional<ForwardPass> decode_step(const Workload& workload,
                                       const std::vector<Prediction>& predictions,
                                       const ArchitectureGraph& graph);

// "3224.657 us per token, 310.1 tokens per second (decode, 1 sequence)": the figures predict
// prints, in its precision.
std::string time_per_token_text(const ForwardPass& pass);

}  // namespace ts
