#include "trace/TraceDiff.hpp"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "trace/TraceBreakdown.hpp"

namespace ts {

TraceDiff diff_traces(const Trace& before, const Trace& after, int64_t step) {
  TraceDiff out;
  std::unordered_map<std::string, size_t> index;
  auto add = [&](const Trace& trace, bool is_after) {
    for (const RankTrace& rank : trace.ranks) {
      const TimeWindow window = window_of(rank, step);
      (is_after ? out.after_wall_ns : out.before_wall_ns) += window.wall_ns();
      const KernelBreakdown kb = kernel_breakdown(rank, window);
      (is_after ? out.after_gpu_ns : out.before_gpu_ns) += kb.total_ns();
      for (const OperatorGpuTime& op : kb.operators) {
        auto [it, added] = index.emplace(op.name, out.operators.size());
        if (added) out.operators.push_back(OperatorTimeChange{op.name});
        OperatorTimeChange& c = out.operators[it->second];
        (is_after ? c.after_ns : c.before_ns) += op.total_ns;
        (is_after ? c.after_kernels : c.before_kernels) += op.kernels;
      }
    }
  };
  add(before, false);
  add(after, true);
  std::stable_sort(out.operators.begin(), out.operators.end(),
                   [](const OperatorTimeChange& a, const OperatorTimeChange& b) {
                     return std::llabs(a.change_ns()) > std::llabs(b.change_ns());
                   });
  return out;
}

}  // namespace ts
