#include "RepetitionTiming.hpp"

#include <algorithm>
#include <unordered_map>

namespace ts::cupti {

RepetitionTiming time_repetitions(const std::vector<RepetitionWindow>& windows,
                                  const DecodedActivity& activity) {
  RepetitionTiming t;
  t.device_ns.assign(windows.size(), 0.0);
  t.kernels.assign(windows.size(), 0);
  // correlation id -> repetition, from the API calls that started inside a window
  std::unordered_map<uint32_t, size_t> repetition_of;
  for (const ApiActivity& call : activity.api_calls) {
    for (size_t r = 0; r < windows.size(); ++r) {
      if (call.start_ns >= windows[r].host_start_ns && call.start_ns <= windows[r].host_end_ns) {
        repetition_of[call.correlation_id] = r;
        break;
      }
    }
  }
  for (const KernelActivity& k : activity.kernels) {
    auto it = repetition_of.find(k.correlation_id);
    if (it == repetition_of.end()) continue;
    t.device_ns[it->second] += static_cast<double>(k.duration_ns());
    t.kernels[it->second] += 1;
    if (std::find(t.kernel_names.begin(), t.kernel_names.end(), k.name) == t.kernel_names.end())
      t.kernel_names.push_back(k.name);
  }
  return t;
}

}  // namespace ts::cupti
