#pragma once
// Agreement between predicted and measured latencies: what `correlate` prints per group.
//
// A figure that has no value (a mean over no pairs, a correlation of fewer than 2 pairs or of a
// constant side) is std::nullopt, never 0: 0 would read as a perfect MAPE or as "no
// correlation", and a gate would pass on it. Every face prints it as "n/a" (FigureText.hpp) and
// JSON as null.
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct AgreementStats {
  size_t count = 0;
  std::optional<double> pearson;   // on the latencies as they are
  std::optional<double> spearman;  // rank correlation, ties averaged
  std::optional<double> kendall;   // tau-b
  std::optional<double> mape;      // mean |pred - meas| / meas, a fraction
  std::optional<double> log_rmse;  // sqrt(mean (ln pred - ln meas)^2)
};

// Pairs with a non-positive (or non-finite) value are not counted. No pair: every figure is
// nullopt; fewer than 2 pairs or a constant side: the correlations are.
AgreementStats agreement(const std::vector<double>& predicted, const std::vector<double>& measured);

// The building blocks of `agreement`, on every pair given (no filtering). A correlation is
// undefined when either side is constant or there are fewer than 2 pairs: nullopt then.

// 1-based ranks; tied values share the mean of the ranks they span (1, 2.5, 2.5, 4).
std::vector<double> average_ranks(const std::vector<double>& values);
std::optional<double> pearson_r(const std::vector<double>& x, const std::vector<double>& y);
// Pearson's r on the average ranks.
std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y);
// Kendall's tau-b, which corrects for ties on either side; O(n log n) (Knight's algorithm).
std::optional<double> kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

// after - before when both have a value (the "change" row of a comparison).
std::optional<double> figure_change(const std::optional<double>& before,
                                    const std::optional<double>& after);

}  // namespace ts
