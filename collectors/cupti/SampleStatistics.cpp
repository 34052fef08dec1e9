#include "SampleStatistics.hpp"

#include <algorithm>

namespace ts::cupti {

SampleSummary summarize(std::vector<double> samples) {
  SampleSummary s;
  s.count = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  s.spread = s.median > 0 ? (s.max - s.min) / s.median : 0;
  return s;
}

}  // namespace ts::cupti
