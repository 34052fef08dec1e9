#include "analysis/ForwardPass.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace ts {

ForwardPass forward_pass(const Workload& workload, const std::vector<Prediction>& predictions,
                         const std::string& main_memory) {
  if (predictions.size() != workload.operators.size())
    throw std::logic_error("forward_pass: one prediction per operator of the workload expected");
  ForwardPass pass;
  pass.phase = workload.phase;
  pass.tokens_per_pass = workload.tokens_per_pass;
  std::map<std::string, OperatorClassTime> by_type;
  std::map<std::string, double> largest;  // per type, the longest operator's time in the pass
  for (size_t i = 0; i < predictions.size(); ++i) {
    const Prediction& r = predictions[i];
    const auto runs = static_cast<double>(workload.operators[i].count);
    const double device_s = r.device_us * 1e-6 * runs;
    double bytes = 0;
    for (const EdgeTraffic& t : r.traffic) {
      const auto arrow = t.edge.find("->");
      if (t.edge.substr(0, arrow) == main_memory || t.edge.substr(arrow + 2) == main_memory)
        bytes += t.bytes;
    }
    pass.device_s += device_s;
    pass.launch_s += r.launch_overhead_us * 1e-6 * runs;
    pass.kernels += workload.operators[i].count;
    OperatorClassTime& c = by_type[r.op_type];
    c.type = r.op_type;
    c.kernels += workload.operators[i].count;
    c.device_s += device_s;
    c.bytes += bytes * runs;
    if (device_s > largest[r.op_type]) {
      largest[r.op_type] = device_s;
      c.bound_by = r.bound_by;
    }
  }
  for (auto& [type, c] : by_type) pass.classes.push_back(c);
  std::stable_sort(pass.classes.begin(), pass.classes.end(),
                   [](const auto& a, const auto& b) { return a.device_s > b.device_s; });
  const double tokens = static_cast<double>(std::max<int64_t>(1, pass.tokens_per_pass));
  pass.time_per_token_s = pass.phase == "decode" ? pass.device_s : pass.device_s / tokens;
  pass.tokens_per_s = pass.device_s > 0 ? tokens / pass.device_s : 0;
  return pass;
}

}  // namespace ts
