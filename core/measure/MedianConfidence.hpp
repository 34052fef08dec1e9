#pragma once
// How well a set of repeated timings pins down its median, without assuming a distribution:
// the order statistics x(j) and x(n+1-j) bound the median with probability at least 95 % when
// j is the largest index with P(Binomial(n, 1/2) < j) <= 2.5 % (the sign-test interval). Timings
// of a disturbed machine are skewed and heavy-tailed (a descheduled repetition is many times
// the others), which rules out a normal approximation; order statistics need only that the
// repetitions are independent.
#include <optional>
#include <span>

namespace ts {

struct MedianInterval {
  double low = 0;
  double median = 0;
  double high = 0;
  // Half the interval's width over the median: 0.05 means the median is known to +-5 %.
  double relative_half_width() const;
};

// The median of `sorted` (ascending, not empty): the middle value, or the mean of the two.
double sorted_median(std::span<const double> sorted);

// The interval of `sorted` (ascending). None for fewer than 6 values: with 5 or fewer, even
// [min, max] covers the median with less than 95 % probability.
std::optional<MedianInterval> median_interval(std::span<const double> sorted);

// The order-statistic index j (1-based) used for n values; 0 when n is too small.
int median_interval_rank(int n);

}  // namespace ts
