#include "training/HostTimeline.hpp"

#include <algorithm>

namespace ts {

HostTimeline run_ahead_steps(const std::vector<StepWork>& steps) {
  HostTimeline t;
  double host = 0, device = 0;
  for (const StepWork& w : steps) {
    t.host.push_back({host, host + w.host_s});
    host += w.host_s;
    device = std::max(device + w.device_s, host);
    t.device_end_s.push_back(device);
  }
  return t;
}

}  // namespace ts
