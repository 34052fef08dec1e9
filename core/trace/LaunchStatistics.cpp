#include "trace/LaunchStatistics.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <queue>

#include "trace/NearestRank.hpp"

namespace ts {

LaunchStatistics launch_statistics(const RankTrace& rank, const TimeWindow& window) {
  LaunchStatistics out;
  out.rank = rank.rank;
  out.window = window;
  std::vector<int64_t> delays;
  struct Queued {
    int64_t launch_ns;
    int64_t end_ns;
  };
  std::map<int64_t, std::vector<Queued>> by_stream;
  for (const GpuActivity& a : rank.gpu) {
    if (a.start_ns >= window.end_ns) break;
    if (a.start_ns < window.begin_ns) continue;
    if (a.launch < 0) {
      ++out.unlaunched;
      continue;
    }
    const LaunchCall& call = rank.launches[static_cast<size_t>(a.launch)];
    ++out.launched;
    delays.push_back(a.start_ns - call.start_ns);
    if (a.kind == GpuActivityKind::kernel && a.duration_ns() < call.end_ns - call.start_ns) {
      ++out.shorter_than_launch;
      out.shorter_than_launch_ns += a.duration_ns();
    }
    by_stream[a.stream].push_back(Queued{call.start_ns, a.end_ns});
  }
  if (delays.empty()) return out;
  double sum = 0;
  for (int64_t d : delays) sum += static_cast<double>(d);
  out.delay_mean_ns = sum / static_cast<double>(delays.size());
  std::sort(delays.begin(), delays.end());
  out.delay_min_ns = delays.front();
  out.delay_max_ns = delays.back();
  out.delay_p50_ns = nearest_rank(delays, 0.50);
  out.delay_p90_ns = nearest_rank(delays, 0.90);
  out.delay_p99_ns = nearest_rank(delays, 0.99);
  // A negative delay (clocks of host and device not aligned) falls in the first bin.
  int64_t upper = 1000;
  out.histogram.push_back(DelayBin{0, upper, 0});
  while (upper <= out.delay_max_ns) {
    out.histogram.push_back(DelayBin{upper, upper * 2, 0});
    upper *= 2;
  }
  for (int64_t d : delays) {
    size_t bin = 0;
    while (bin + 1 < out.histogram.size() && d >= out.histogram[bin].upper_ns) ++bin;
    ++out.histogram[bin].count;
  }

  // Queue length at each launch: the stream's work launched before it and not yet finished.
  int64_t queue_sum = 0, samples = 0;
  for (auto& [stream, list] : by_stream) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Queued& a, const Queued& b) { return a.launch_ns < b.launch_ns; });
    std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>> ends;
    for (const Queued& q : list) {
      while (!ends.empty() && ends.top() <= q.launch_ns) ends.pop();
      const auto length = static_cast<int64_t>(ends.size());
      out.max_queue = std::max(out.max_queue, length);
      queue_sum += length;
      ++samples;
      ends.push(q.end_ns);
    }
  }
  out.mean_queue = samples ? static_cast<double>(queue_sum) / static_cast<double>(samples) : 0.0;
  return out;
}

}  // namespace ts
