#pragma once
// Agreement between predicted and measured latencies: what `correlate` prints per group.
#include <string>
#include <vector>

namespace ts {

struct AgreementStats {
  size_t count = 0;
  double pearson = 0;   // on the latencies as they are
  double spearman = 0;  // rank correlation, ties averaged
  double kendall = 0;   // tau-b
  double mape = 0;      // mean |pred - meas| / meas, a fraction
  double log_rmse = 0;  // sqrt(mean (ln pred - ln meas)^2)
};

// Pairs with a non-positive value are not counted. Fewer than 2 pairs give zero correlations.
AgreementStats agreement(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace ts
