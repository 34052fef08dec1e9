// The distribution-free interval of a median (measure/MedianConfidence), against binomial sums
// worked out by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "measure/MedianConfidence.hpp"

using namespace ts;

TEST_CASE("the median's interval uses the order statistics of the sign test", "[measure]") {
  // P(X <= k), X ~ Binomial(n, 1/2); rank j is the largest with P(X <= j - 1) <= 2.5 %.
  // n = 5: P(X <= 0) = 1/32 = 3.1 % > 2.5 %: no interval.
  CHECK(median_interval_rank(5) == 0);
  // n = 6: P(X <= 0) = 1/64 = 1.6 %; P(X <= 1) = 7/64 = 10.9 %: j = 1, [min, max].
  CHECK(median_interval_rank(6) == 1);
  // n = 7: P(X <= 1) = 8/128 = 6.3 %: still j = 1.
  CHECK(median_interval_rank(7) == 1);
  // n = 9: P(X <= 1) = 10/512 = 2.0 %; P(X <= 2) = 46/512 = 9.0 %: j = 2.
  CHECK(median_interval_rank(9) == 2);
  // n = 20: P(X <= 5) = 21700/1048576 = 2.07 %; P(X <= 6) = 60460/1048576 = 5.8 %: j = 6.
  CHECK(median_interval_rank(20) == 6);
  // Large n does not overflow: n = 1000 gives j close to 500 - 1.96 * sqrt(1000) / 2 = 469.
  CHECK(median_interval_rank(1000) >= 468);
  CHECK(median_interval_rank(1000) <= 470);
}

TEST_CASE("the median's interval of nine timings drops one value at each end", "[measure]") {
  const std::vector<double> sorted = {700, 980, 990, 1000, 1000, 1010, 1020, 1040, 5000};
  const auto m = median_interval(sorted);
  REQUIRE(m);
  CHECK(m->low == 980);
  CHECK(m->median == 1000);
  CHECK(m->high == 1040);
  // (1040 - 980) / 2 / 1000 = 3 %.
  CHECK(m->relative_half_width() == Approx(0.03));
  CHECK_FALSE(median_interval(std::vector<double>{1, 2, 3, 4, 5}));
  // Even n: the median is the mean of the middle two.
  const auto even = median_interval(std::vector<double>{1, 2, 3, 5, 6, 7});
  REQUIRE(even);
  CHECK(even->median == 4);
  CHECK(even->low == 1);
  CHECK(even->high == 7);
}
