#include "measure/MedianConfidence.hpp"

#include <cmath>

namespace ts {

double MedianInterval::relative_half_width() const {
  return median > 0 ? 0.5 * (high - low) / median : INFINITY;
}

int median_interval_rank(int n) {
  // P(X <= k) for X ~ Binomial(n, 1/2), summed in logs so that large n cannot overflow.
  double cumulative = 0;
  int rank = 0;
  for (int k = 0; 2 * k < n; ++k) {
    const double log_term =
        std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) - n * std::log(2.0);
    cumulative += std::exp(log_term);
    // x(k+1) is a valid lower bound when P(X <= k) = P(X < k+1) <= 2.5 %.
    if (cumulative > 0.025) break;
    rank = k + 1;
  }
  return rank;
}

std::optional<MedianInterval> median_interval(std::span<const double> sorted) {
  const int n = static_cast<int>(sorted.size());
  const int j = median_interval_rank(n);
  if (j == 0) return std::nullopt;
  MedianInterval m;
  m.low = sorted[static_cast<size_t>(j - 1)];
  m.high = sorted[static_cast<size_t>(n - j)];
  m.median = sorted_median(sorted);
  return m;
}

double sorted_median(std::span<const double> sorted) {
  const size_t h = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
}

}  // namespace ts
