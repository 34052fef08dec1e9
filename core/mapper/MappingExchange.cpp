#include "mapper/MappingExchange.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>

#include "common/WorkThreads.hpp"
#include "mapper/OperatorEvaluation.hpp"

namespace ts {

size_t exchange_best_mappings(const Operator& op,
                              const std::vector<const ArchitectureGraph*>& graphs,
                              const std::vector<OperatorOnGraph*>& on) {
  // The mappings as the searches found them: an exchanged one is not passed on again.
  std::vector<std::string> found(on.size());
  for (size_t i = 0; i < on.size(); ++i)
    if (on[i]->ok && on[i]->prediction.searched) found[i] = on[i]->mapping_yaml;
  // Many graphs of a sweep find the same mapping: each text is tried once per graph, as the
  // first graph that found it.
  std::vector<size_t> first_of(on.size());
  for (size_t h = 0; h < on.size(); ++h) {
    first_of[h] = h;
    for (size_t k = 0; k < h; ++k)
      if (found[k] == found[h]) {
        first_of[h] = k;
        break;
      }
  }
  // Graphs are independent: each reads the others' found mappings and writes only its own.
  std::vector<uint8_t> replaced_at(on.size(), 0);
  tbb::parallel_for(size_t(0), on.size(), [&](size_t g) {
    OperatorOnGraph& here = *on[g];
    if (!here.ok || !here.prediction.searched) return;
    std::optional<Prediction> best;
    std::string best_yaml;
    for (size_t h = 0; h < on.size(); ++h) {
      if (h == g || first_of[h] != h || found[h].empty() || found[h] == here.mapping_yaml) continue;
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
    if (!best) return;
    best->searched = true;
    best->search_converged = here.prediction.search_converged;
    best->search_evaluations = here.prediction.search_evaluations;
    here.prediction = std::move(*best);
    here.mapping_yaml = std::move(best_yaml);
    replaced_at[g] = 1;
  });
  return static_cast<size_t>(std::count(replaced_at.begin(), replaced_at.end(), 1));
}

size_t exchange_suite_mappings(const std::vector<Operator>& operators,
                               const std::vector<const ArchitectureGraph*>& graphs,
                               const std::vector<std::vector<Prediction>*>& predictions,
                               const std::vector<std::vector<std::string>>& mappings) {
  // Operators are independent: each reads and writes only its own column of the predictions.
  std::vector<size_t> replaced(operators.size(), 0);
  for_each_item(operators.size(), [&](size_t i) {
    std::vector<OperatorOnGraph> on;
    for (size_t g = 0; g < graphs.size(); ++g) {
      const bool ok = i < predictions[g]->size() && i < mappings[g].size() &&
                      !mappings[g][i].empty() && std::isfinite((*predictions[g])[i].device_us);
      on.push_back(ok ? OperatorOnGraph{true, (*predictions[g])[i], mappings[g][i]}
                      : OperatorOnGraph{});
    }
    std::vector<OperatorOnGraph*> pointers;
    for (OperatorOnGraph& o : on) pointers.push_back(&o);
    replaced[i] = exchange_best_mappings(operators[i], graphs, pointers);
    if (replaced[i] == 0) return;
    for (size_t g = 0; g < graphs.size(); ++g)
      if (on[g].ok) (*predictions[g])[i] = std::move(on[g].prediction);
  });
  return std::accumulate(replaced.begin(), replaced.end(), size_t{0});
}

}  // namespace ts
