#include "host/TileCopy.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

namespace ts::host {

void copy_tile(float* dst, int64_t ld_dst, const float* src, int64_t ld_src, int64_t rows,
               int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + r * ld_dst, src + r * ld_src, static_cast<size_t>(cols) * sizeof(float));
}

double tile_copy_bytes_per_second(double source_bytes, double seconds) {
  using Clock = std::chrono::steady_clock;
  constexpr int64_t kRows = 64, kCols = 96, kStride = 768, kLd = kCols + 16;
  const int64_t source_floats =
      std::max<int64_t>(static_cast<int64_t>(source_bytes / sizeof(float)), 2 * kRows * kStride);
  std::vector<float> src(static_cast<size_t>(source_floats), 1.0f), dst(kRows * kLd, 0.0f);
  const int64_t tiles = source_floats / (kRows * kStride);
  // Touch the source once so that it sits in the cache it is sized for.
  for (int64_t t = 0; t < tiles; ++t)
    copy_tile(dst.data(), kLd, src.data() + t * kRows * kStride, kStride, kRows, kCols);
  std::vector<double> times;
  const auto start = Clock::now();
  for (int64_t i = 0; times.size() < 200 ||
                      (std::chrono::duration<double>(Clock::now() - start).count() < seconds &&
                       times.size() < 200000);
       ++i) {
    const float* from = src.data() + (i % tiles) * kRows * kStride + (i / tiles) % 8 * kCols;
    const auto t0 = Clock::now();
    copy_tile(dst.data(), kLd, from, kStride, kRows, kCols);
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  const size_t q = times.size() / 5;
  std::nth_element(times.begin(), times.begin() + static_cast<long>(q), times.end());
  return static_cast<double>(kRows * kCols * sizeof(float)) / times[q];
}

}  // namespace ts::host
