#include "host/CacheFlush.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ts::host {
namespace {

// "32K", "2048K", "36M" as written in sysfs.
size_t parse_cache_size(const std::string& text) {
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str()) return 0;
  size_t unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1024;
  if (*end == 'M' || *end == 'm') unit = 1024 * 1024;
  if (*end == 'G' || *end == 'g') unit = size_t{1024} * 1024 * 1024;
  return static_cast<size_t>(n) * unit;
}

size_t sysfs_largest_data_cache() {
  namespace fs = std::filesystem;
  size_t largest = 0;
  std::error_code ec;
  const fs::path root = "/sys/devices/system/cpu/cpu0/cache";
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    std::ifstream type(entry.path() / "type"), size(entry.path() / "size");
    std::string t, s;
    if (!(type >> t) || !(size >> s) || t == "Instruction") continue;
    largest = std::max(largest, parse_cache_size(s));
  }
  return largest;
}

}  // namespace

size_t last_level_cache_bytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL1_DCACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<size_t>(bytes);
  }
  const size_t from_sysfs = sysfs_largest_data_cache();
  return from_sysfs > 0 ? from_sysfs : size_t{32} << 20;
}

CacheFlush::CacheFlush(size_t bytes) {
  // Twice the last-level cache, but at most 128 MiB: a VM that reports its host's whole L3
  // (260 MiB here) holds only a share of it, and a larger sweep would cost more time per
  // repetition than the suite's operators themselves (docs/host.md).
  if (bytes == 0) bytes = std::min<size_t>(2 * last_level_cache_bytes(), size_t(128) << 20);
  buffer_.assign(std::max<size_t>(bytes / sizeof(double), 1), 0.0);
}

void CacheFlush::run() {
  // A different value every pass so that no store can be skipped as a no-op.
  const double v = static_cast<double>(++pass_);
  double* p = buffer_.data();
  const size_t n = buffer_.size();
  for (size_t i = 0; i < n; ++i) p[i] = v;
  double sum = 0;
#pragma omp simd reduction(+ : sum)
  for (size_t i = 0; i < n; ++i) sum += p[i];
  // Keeps the reads: the sum goes somewhere the compiler cannot see through.
  volatile double sink = sum;
  (void)sink;
}

}  // namespace ts::host
