#pragma once
// Evicts the operands of the previous repetition before the next one: writes and then reads a
// buffer twice the size of the last-level cache (at most 128 MiB) with ordinary loads and stores
// (non-temporal stores would bypass the caches and evict nothing). The buffer is allocated once and
// kept.
#include <cstddef>
#include <vector>

namespace ts::host {

// The largest data cache of this machine in bytes: sysconf(_SC_LEVEL3/2/1_...), else
// /sys/devices/system/cpu/cpu0/cache, else 32 MiB.
size_t last_level_cache_bytes();

class CacheFlush {
 public:
  // `bytes` 0: twice last_level_cache_bytes(), at most 128 MiB.
  explicit CacheFlush(size_t bytes = 0);
  void run();
  size_t bytes() const { return buffer_.size() * sizeof(double); }

 private:
  std::vector<double> buffer_;
  unsigned pass_ = 0;
};

}  // namespace ts::host
