#pragma once
// Minimum, median and spread of repeated timings, as the host collector reports them.
#include <vector>

namespace ts::cupti {

struct SampleSummary {
  int count = 0;
  double min = 0;
  double median = 0;  // mean of the middle two for an even count
  double max = 0;
  double spread = 0;  // (max - min) / median; 0 when the median is 0
};

SampleSummary summarize(std::vector<double> samples);

}  // namespace ts::cupti
