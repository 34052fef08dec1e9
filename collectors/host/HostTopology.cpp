#include "host/HostTopology.hpp"

#include <fmt/format.h>
#include <hwloc.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>

#include "common/ByteFormat.hpp"

namespace ts::host {

struct HostTopology::Impl {
  hwloc_topology_t topology = nullptr;
  std::vector<hwloc_bitmap_t> core_sets;  // owned by the topology
};

namespace {

constexpr hwloc_obj_type_t cache_types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE,
                                            HWLOC_OBJ_L3CACHE};

}  // namespace

HostTopology::HostTopology() : impl_(std::make_unique<Impl>()) {
  if (hwloc_topology_init(&impl_->topology) != 0)
    throw std::runtime_error("hwloc: cannot initialise a topology");
  if (hwloc_topology_load(impl_->topology) != 0) {
    hwloc_topology_destroy(impl_->topology);
    throw std::runtime_error("hwloc: cannot discover the host topology");
  }
  hwloc_topology_t t = impl_->topology;

  pus_ = std::max(1, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU));
  const int ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  // Some virtual machines report no cores: each PU then counts as one.
  const hwloc_obj_type_t core_type = ncores > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  cores_ = std::max(1, ncores > 0 ? ncores : pus_);
  for (int i = 0; i < hwloc_get_nbobjs_by_type(t, core_type); ++i)
    impl_->core_sets.push_back(
        hwloc_get_obj_by_type(t, core_type, static_cast<unsigned>(i))->cpuset);

  hwloc_obj_t root = hwloc_get_root_obj(t);
  // hwloc counts the memory of its NUMA nodes; some virtual machines report less there than
  // the kernel has (hot-plugged memory), so the larger of the two is the machine's.
  memory_bytes_ = static_cast<double>(root->total_memory);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0)
    memory_bytes_ = std::max(memory_bytes_, static_cast<double>(pages) * static_cast<double>(page));

  for (int i = 0; i < hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE) && cpu_model_.empty(); ++i)
    if (const char* model = hwloc_obj_get_info_by_name(
            hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i)), "CPUModel"))
      cpu_model_ = model;
  if (cpu_model_.empty())
    if (const char* model = hwloc_obj_get_info_by_name(root, "CPUModel")) cpu_model_ = model;
  if (cpu_model_.empty()) cpu_model_ = "unknown CPU";

  for (hwloc_obj_type_t type : cache_types) {
    const int n = hwloc_get_nbobjs_by_type(t, type);
    CacheLevel c;
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_type(t, type, static_cast<unsigned>(i));
      // L1 objects are data or unified caches (instruction caches are HWLOC_OBJ_L1ICACHE); skip
      // an instruction-only cache at any level all the same.
      if (obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION || obj->attr->cache.size == 0)
        continue;
      const double size = static_cast<double>(obj->attr->cache.size);
      c.level = static_cast<int>(obj->attr->cache.depth);
      c.size_bytes = c.instances == 0 ? size : std::min(c.size_bytes, size);
      ++c.instances;
      const int inside = hwloc_get_nbobjs_inside_cpuset_by_type(t, obj->cpuset, core_type);
      c.cores_per_instance = std::max(c.cores_per_instance, std::max(1, inside));
    }
    if (c.instances > 0) caches_.push_back(c);
  }
}

HostTopology::~HostTopology() {
  if (impl_ && impl_->topology) hwloc_topology_destroy(impl_->topology);
}

const CacheLevel* HostTopology::cache(int level) const {
  for (const auto& c : caches_)
    if (c.level == level) return &c;
  return nullptr;
}

std::string HostTopology::summary() const {
  std::string s = fmt::format("{} cores, {} PUs", cores_, pus_);
  for (const auto& c : caches_)
    s += fmt::format("; L{}{} {} x {} ({} core{} each)", c.level, c.level == 1 ? "d" : "",
                     format_bytes(c.size_bytes), c.instances, c.cores_per_instance,
                     c.cores_per_instance == 1 ? "" : "s");
  if (caches_.empty()) s += "; no caches reported";
  s += fmt::format("; memory {}", format_bytes(memory_bytes_));
  return s;
}

HostTopology::Binding HostTopology::bind_thread_to_core(int index) const {
  if (impl_->core_sets.empty()) return Binding(this, nullptr);
  hwloc_bitmap_t previous = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(impl_->topology, previous, HWLOC_CPUBIND_THREAD) != 0) {
    hwloc_bitmap_free(previous);
    return Binding(this, nullptr);
  }
  const size_t core = static_cast<size_t>(index) % impl_->core_sets.size();
  if (hwloc_set_cpubind(impl_->topology, impl_->core_sets[core], HWLOC_CPUBIND_THREAD) != 0) {
    hwloc_bitmap_free(previous);
    return Binding(this, nullptr);
  }
  return Binding(this, previous);
}

HostTopology::Binding::~Binding() {
  if (!previous_) return;
  auto set = static_cast<hwloc_bitmap_t>(previous_);
  hwloc_set_cpubind(owner_->impl_->topology, set, HWLOC_CPUBIND_THREAD);
  hwloc_bitmap_free(set);
}

HostTopology::Binding::Binding(Binding&& other) noexcept
    : owner_(other.owner_), previous_(other.previous_) {
  other.previous_ = nullptr;
}

}  // namespace ts::host
