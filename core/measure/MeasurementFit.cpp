#include "measure/MeasurementFit.hpp"

namespace ts {

MeasurementFit measurement_fit(const ShownMeasurements& shown) {
  if (shown.measurements > 0 && shown.workload_open && shown.operators_measured == 0)
    return MeasurementFit::other_workload;
  // Only a run that names a graph has stored predictions to be of another graph; one without is
  // predicted on the open graph and fits it.
  if (shown.operators_measured > 0 && !shown.run_arch_hash.empty() &&
      !shown.open_arch_hash.empty() && shown.run_arch_hash != shown.open_arch_hash)
    return MeasurementFit::other_graph;
  return MeasurementFit::fits;
}

}  // namespace ts
