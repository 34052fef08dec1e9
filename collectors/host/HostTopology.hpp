#pragma once
// What hwloc says about the machine this process may run on: cores, hardware threads, data
// cache levels (size, how many there are, how many cores share one), memory and the CPU's name.
// Only what the process is allowed to use is counted (a cgroup or taskset limit shrinks it),
// since that is what a kernel launched from here gets.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ts::host {

struct CacheLevel {
  int level = 0;          // 1, 2, 3
  double size_bytes = 0;  // of one instance (the smallest, should they differ)
  int instances = 0;      // cache objects at this level
  int cores_per_instance = 1;
};

class HostTopology {
 public:
  HostTopology();  // discovers; throws std::runtime_error when hwloc cannot
  ~HostTopology();
  HostTopology(const HostTopology&) = delete;
  HostTopology& operator=(const HostTopology&) = delete;

  int cores() const { return cores_; }
  int pus() const { return pus_; }
  double memory_bytes() const { return memory_bytes_; }
  const std::string& cpu_model() const { return cpu_model_; }
  // Data (or unified) caches, innermost first; levels hwloc does not report are absent.
  const std::vector<CacheLevel>& caches() const { return caches_; }
  const CacheLevel* cache(int level) const;
  // "2 cores, 2 PUs; L1d 48 KiB x 2 (1 core each); ...": for comments and descriptions.
  std::string summary() const;

  // Binds the calling thread to core `index` (modulo the core count) until the returned guard
  // is destroyed, which restores the thread's previous binding. Binding keeps one benchmark
  // thread per physical core (never two on the hyper-threads of one core) and keeps a thread
  // on the core whose caches it warmed. Failing to bind (not permitted, unsupported) is not an
  // error: the measurement then runs where the OS puts it.
  class Binding {
   public:
    ~Binding();
    Binding(Binding&&) noexcept;
    Binding(const Binding&) = delete;
    Binding& operator=(const Binding&) = delete;

   private:
    friend class HostTopology;
    Binding(const HostTopology* owner, void* previous) : owner_(owner), previous_(previous) {}
    const HostTopology* owner_;
    void* previous_;  // hwloc_bitmap_t, null when nothing is to be restored
  };
  Binding bind_thread_to_core(int index) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int cores_ = 1;
  int pus_ = 1;
  double memory_bytes_ = 0;
  std::string cpu_model_;
  std::vector<CacheLevel> caches_;
};

}  // namespace ts::host
