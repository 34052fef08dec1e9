#include "measure/MeasuredCost.hpp"

#include "measure/ResultStore.hpp"

namespace ts {

std::string operator_identity(std::string_view type, std::string_view dims,
                              std::string_view dtypes) {
  std::string key;
  key.reserve(type.size() + dims.size() + dtypes.size() + 2);
  key.append(type).append("|").append(dims).append("|").append(dtypes);
  return key;
}

void FastestMeasurements::add(const OperatorKey& op, double seconds, TimingScope scope) {
  auto [it, inserted] = fastest_.try_emplace(operator_identity(op), MeasuredCost{seconds, scope});
  if (!inserted && seconds < it->second.seconds) it->second = MeasuredCost{seconds, scope};
}

std::optional<MeasuredCost> FastestMeasurements::of(const OperatorKey& op) const {
  const auto it = fastest_.find(operator_identity(op));
  if (it == fastest_.end()) return std::nullopt;
  return it->second;
}

FastestMeasurements fastest_measurements(const ResultStore& store) {
  FastestMeasurements fastest;
  for (const RunInfo& run : store.runs())
    for (const Measurement& m : store.measurements(run.id))
      fastest.add(m.op, m.median_ns * 1e-9, m.scope);
  return fastest;
}

std::optional<size_t> operator_of(const OperatorKey& measured,
                                  std::span<const OperatorKey> operators) {
  std::optional<size_t> first;
  for (size_t i = 0; i < operators.size(); ++i) {
    const OperatorKey& op = operators[i];
    if (op.type != measured.type || op.dims != measured.dims || op.dtypes != measured.dtypes)
      continue;
    if (op.name == measured.name) return i;
    if (!first) first = i;
  }
  return first;
}

}  // namespace ts
