#include "mapper/MappingExchange.hpp"

#include <fmt/format.h>

#include <optional>

#include "mapper/OperatorEvaluation.hpp"

namespace ts {

size_t exchange_best_mappings(const Operator& op,
                              const std::vector<const ArchitectureGraph*>& graphs,
                              const std::vector<OperatorOnGraph*>& on) {
  // The mappings as the searches found them: an exchanged one is not passed on again.
  std::vector<std::string> found(on.size());
  for (size_t i = 0; i < on.size(); ++i)
    if (on[i]->ok && on[i]->prediction.searched) found[i] = on[i]->mapping_yaml;
  size_t replaced = 0;
  for (size_t g = 0; g < on.size(); ++g) {
    OperatorOnGraph& here = *on[g];
    if (!here.ok || !here.prediction.searched) continue;
    std::optional<Prediction> best;
    std::string best_yaml;
    for (size_t h = 0; h < on.size(); ++h) {
      if (h == g || found[h].empty() || found[h] == here.mapping_yaml) continue;
      // A mapping that names a node this graph lacks, or overflows one of its memories, is not a
      // point of this graph's space.
      const MappingEvaluation e = evaluate_mapping_text(op, *graphs[g], found[h]);
      if (!e.valid()) continue;
      Prediction p = make_prediction(*e.program, e.result);
      const double to_beat = best ? best->device_us : here.prediction.device_us;
      if (!(p.device_us < to_beat)) continue;
      p.mapping_origin = fmt::format("mapper, as found on '{}'", graphs[h]->name);
      best = std::move(p);
      best_yaml = found[h];
    }
    if (!best) continue;
    best->searched = true;
    best->search_converged = here.prediction.search_converged;
    best->search_evaluations = here.prediction.search_evaluations;
    here.prediction = std::move(*best);
    here.mapping_yaml = std::move(best_yaml);
    ++replaced;
  }
  return replaced;
}

}  // namespace ts
