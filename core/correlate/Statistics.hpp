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

// Pairs with a non-positive (or non-finite) value are not counted. Fewer than 2 pairs give zero
// correlations.
AgreementStats agreement(const std::vector<double>& predicted, const std::vector<double>& measured);

// The building blocks of `agreement`, on every pair given (no filtering). A correlation is
// undefined when either side is constant or there are fewer than 2 pairs; these return 0 then,
// so that a report never carries a NaN.

// 1-based ranks; tied values share the mean of the ranks they span (1, 2.5, 2.5, 4).
std::vector<double> average_ranks(const std::vector<double>& values);
double pearson_r(const std::vector<double>& x, const std::vector<double>& y);
// Pearson's r on the average ranks.
double spearman_rho(const std::vector<double>& x, const std::vector<double>& y);
// Kendall's tau-b, which corrects for ties on either side; O(n log n) (Knight's algorithm).
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace ts
