#include "sweep/SweepResume.hpp"

#include <set>
#include <string>

namespace ts {

std::vector<size_t> pending_points(const SweepSpace& sweep, const ResultStore& store) {
  const std::vector<std::string> keys =
      store.sweep_point_keys(sweep.sweep_key(), sweep.workload_hash());
  const std::set<std::string> stored(keys.begin(), keys.end());
  std::vector<size_t> pending;
  for (size_t i = 0; i < sweep.size(); ++i)
    if (!stored.count(sweep.parameters_json(i))) pending.push_back(i);
  return pending;
}

std::vector<SweepPointRecord> stored_points_of(const SweepSpace& sweep, const ResultStore& store) {
  std::set<std::string> ours;
  for (size_t i = 0; i < sweep.size(); ++i) ours.insert(sweep.parameters_json(i));
  std::vector<SweepPointRecord> mine;
  for (SweepPointRecord& p : store.sweep_points(sweep.sweep_key(), sweep.workload_hash()))
    if (ours.count(p.parameters_json)) mine.push_back(std::move(p));
  return mine;
}

}  // namespace ts
