#include "correlate/Statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <utility>

namespace ts {
namespace {

// Pairs of values that are equal with each other: t (t - 1) / 2 for each run of t equal values
// in an already sorted sequence.
template <class Equal>
int64_t tied_pairs(size_t n, Equal equal) {
  int64_t ties = 0;
  size_t run = 1;
  for (size_t i = 1; i <= n; ++i) {
    if (i < n && equal(i - 1, i)) {
      ++run;
    } else {
      ties += static_cast<int64_t>(run) * static_cast<int64_t>(run - 1) / 2;
      run = 1;
    }
  }
  return ties;
}

// Sorts `v` ascending and returns the number of inversions (i < j with v[i] > v[j]): a bottom-up
// merge sort that takes from the left on equal values, so equal values are never counted.
int64_t sort_counting_inversions(std::vector<double>& v) {
  const size_t n = v.size();
  std::vector<double> buffer(n);
  int64_t inversions = 0;
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = std::min(lo + width, n), hi = std::min(lo + 2 * width, n);
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if (v[i] <= v[j]) {
          buffer[k++] = v[i++];
        } else {
          inversions += static_cast<int64_t>(mid - i);  // v[j] jumps over every remaining left
          buffer[k++] = v[j++];
        }
      }
      while (i < mid) buffer[k++] = v[i++];
      while (j < hi) buffer[k++] = v[j++];
    }
    std::swap(v, buffer);
  }
  return inversions;
}

}  // namespace

std::vector<double> average_ranks(const std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n);
  for (size_t start = 0; start < n;) {
    size_t end = start + 1;
    while (end < n && values[order[end]] == values[order[start]]) ++end;
    // Positions start..end-1 hold equal values: each gets the mean of ranks start+1..end.
    const double mean_rank = 0.5 * static_cast<double>(start + 1 + end);
    for (size_t i = start; i < end; ++i) ranks[order[i]] = mean_rank;
    start = end;
  }
  return ranks;
}

std::optional<double> pearson_r(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::nullopt;
  double mean_x = 0, mean_y = 0;
  for (size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  // Centred sums, not the one-pass formula: latencies from 10 us to 10 ms would lose digits.
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mean_x, dy = y[i] - mean_y;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx <= 0 || syy <= 0) return std::nullopt;  // a constant side: r = 0/0
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

std::optional<double> spearman_rho(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::nullopt;
  const std::vector<double> xs(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n));
  const std::vector<double> ys(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(n));
  return pearson_r(average_ranks(xs), average_ranks(ys));
}

std::optional<double> kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = std::min(x.size(), y.size());
  if (n < 2) return std::nullopt;
  std::vector<std::pair<double, double>> pairs(n);
  for (size_t i = 0; i < n; ++i) pairs[i] = {x[i], y[i]};
  std::sort(pairs.begin(), pairs.end());
  const int64_t total = static_cast<int64_t>(n) * static_cast<int64_t>(n - 1) / 2;
  const int64_t ties_x =
      tied_pairs(n, [&](size_t a, size_t b) { return pairs[a].first == pairs[b].first; });
  const int64_t ties_xy = tied_pairs(n, [&](size_t a, size_t b) { return pairs[a] == pairs[b]; });
  // Sorted by x (then y), a pair is discordant exactly when its y values are inverted.
  std::vector<double> ys(n);
  for (size_t i = 0; i < n; ++i) ys[i] = pairs[i].second;
  const int64_t discordant = sort_counting_inversions(ys);
  const int64_t ties_y = tied_pairs(n, [&](size_t a, size_t b) { return ys[a] == ys[b]; });
  // Concordant - discordant over the pairs untied on both sides.
  const double s = static_cast<double>(total - ties_x - ties_y + ties_xy - 2 * discordant);
  const double denominator =
      std::sqrt(static_cast<double>(total - ties_x) * static_cast<double>(total - ties_y));
  if (denominator <= 0) return std::nullopt;  // every pair tied on one side
  return std::clamp(s / denominator, -1.0, 1.0);
}

std::optional<double> figure_change(const std::optional<double>& before,
                                    const std::optional<double>& after) {
  if (!before || !after) return std::nullopt;
  return *after - *before;
}

AgreementStats agreement(const std::vector<double>& predicted,
                         const std::vector<double>& measured) {
  // Infinite predictions (a mapping made invalid) and NaNs are left out like non-positive ones:
  // no ratio or logarithm means anything for them.
  std::vector<double> p, m;
  const size_t n = std::min(predicted.size(), measured.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(predicted[i] > 0) || !(measured[i] > 0) || !std::isfinite(predicted[i]) ||
        !std::isfinite(measured[i]))
      continue;
    p.push_back(predicted[i]);
    m.push_back(measured[i]);
  }
  AgreementStats s;
  s.count = p.size();
  if (s.count == 0) return s;
  double abs_rel = 0, sq_log = 0;
  for (size_t i = 0; i < s.count; ++i) {
    abs_rel += std::abs(p[i] - m[i]) / m[i];
    const double log_error = std::log(p[i]) - std::log(m[i]);
    sq_log += log_error * log_error;
  }
  s.mape = abs_rel / static_cast<double>(s.count);
  s.log_rmse = std::sqrt(sq_log / static_cast<double>(s.count));
  s.pearson = pearson_r(p, m);
  s.spearman = spearman_rho(p, m);
  s.kendall = kendall_tau_b(p, m);
  return s;
}

}  // namespace ts
