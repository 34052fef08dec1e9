#include "measure/ComparedTime.hpp"

#include "analysis/Prediction.hpp"

namespace ts {

double compared_time(double device_time, double launch_time, TimingScope scope) {
  return scope == TimingScope::host_call ? device_time + launch_time : device_time;
}

double compared_seconds(const Prediction& p, TimingScope scope) {
  return compared_time(p.device_us * 1e-6, p.launch_overhead_us * 1e-6, scope);
}

double compared_seconds(const PredictionRecord& p, TimingScope scope) {
  return compared_time(p.device_s, p.launch_s, scope);
}

double compared_us(const Prediction& p, TimingScope scope) {
  return compared_time(p.device_us, p.launch_overhead_us, scope);
}

}  // namespace ts
