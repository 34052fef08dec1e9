#include "measure/PredictionRecordOf.hpp"

namespace ts {

PredictionRecord prediction_record(const Prediction& p, const OperatorKey& key,
                                   const std::optional<MappingRecord>& mapping,
                                   const ArchitectureGraph& g, const std::string& chosen_yaml) {
  PredictionRecord r;
  r.op = key;
  r.mapping = mapping;
  r.arch_hash = hash_text(g.content_hash());
  r.arch_name = g.name;
  r.device_s = p.device_us * 1e-6;
  r.launch_s = p.launch_overhead_us * 1e-6;
  r.bound_by = p.bound_by;
  r.chosen_mapping_yaml = chosen_yaml;
  return r;
}

}  // namespace ts
