#include "analysis/TimePerToken.hpp"

#include <fmt/format.h>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

std::string main_memory_of(const ArchitectureGraph& graph) {
  std::string main_memory;
  double largest = -1;
  for (const auto& n : graph.nodes)
    if (n.kind == NodeKind::memory && n.capacity_bytes > largest) {
      largest = n.capacity_bytes;
      main_memory = n.name;
    }
  return main_memory;
}

std::optional<ForwardPass> decode_step(const Workload& workload,
                                       const std::vector<Prediction>& predictions,
                                       const ArchitectureGraph& graph) {
  if (workload.phase != "decode" || predictions.size() != workload.operators.size())
    return std::nullopt;
  return forward_pass(workload, predictions, main_memory_of(graph));
}

std::string time_per_token_text(const ForwardPass& pass) {
  // A decode step makes one token for each sequence of the batch.
  return fmt::format("{:.3f} us per token, {:.1f} tokens per second ({}, {} sequence{})",
                     pass.time_per_token_s * 1e6, pass.tokens_per_s, pass.phase,
                     pass.tokens_per_pass, pass.tokens_per_pass == 1 ? "" : "s");
}

}  // namespace ts
