#include "trace/OperatorRunTimes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

namespace ts {
namespace {

// "a + b", "a x2 + b": the kernels one run of an operator launched, in the order they ran.
std::string kernels_signature(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size();) {
    size_t j = i;
    while (j < names.size() && names[j] == names[i]) ++j;
    if (!out.empty()) out += " + ";
    out += names[i];
    if (j - i > 1) out += fmt::format(" x{}", j - i);
    i = j;
  }
  return out;
}

}  // namespace

std::vector<OperatorRunTimes> operator_run_times(const TraceEvents& events,
                                                 const ResolvedTrace& resolved) {
  std::map<std::pair<int64_t, int>, std::vector<size_t>> kernels_of_run;  // (instance, op)
  std::vector<std::pair<int64_t, int>> order;
  for (size_t k = 0; k < events.kernels.size(); ++k) {
    const int op = resolved.kernel_operator[k];
    if (op < 0) continue;
    const auto key = std::make_pair(resolved.kernel_instance[k], op);
    auto [it, fresh] = kernels_of_run.try_emplace(key);
    if (fresh) order.push_back(key);
    it->second.push_back(k);
  }
  std::vector<OperatorRunTimes> groups;
  std::map<std::pair<int, std::string>, size_t> group_of;
  auto add = [&](int op, std::string signature, double ns) {
    auto [it, fresh] = group_of.emplace(std::make_pair(op, signature), groups.size());
    if (fresh) groups.push_back(OperatorRunTimes{op, std::move(signature), {}});
    groups[it->second].durations_ns.push_back(ns);
  };
  for (const auto& key : order) {
    std::vector<size_t>& ks = kernels_of_run[key];
    std::stable_sort(ks.begin(), ks.end(), [&](size_t a, size_t b) {
      return events.kernels[a].start_ns < events.kernels[b].start_ns;
    });
    const int64_t instance = key.first;
    const size_t runs = instance >= 0 && static_cast<size_t>(instance) < events.operators.size()
                            ? static_cast<size_t>(std::max<int64_t>(
                                  1, events.operators[static_cast<size_t>(instance)].occurrences))
                            : 1;
    auto names_of = [&](size_t first, size_t count) {
      std::vector<std::string_view> names;
      for (size_t i = first; i < first + count; ++i)
        names.push_back(kernel_name(events, events.kernels[ks[i]]));
      return names;
    };
    auto total_of = [&](size_t first, size_t count) {
      double ns = 0;
      for (size_t i = first; i < first + count; ++i) ns += events.kernels[ks[i]].duration_ns;
      return ns;
    };
    bool even = ks.size() % runs == 0;
    const size_t per_run = even ? ks.size() / runs : ks.size();
    const std::vector<std::string_view> first_run = names_of(0, per_run);
    for (size_t r = 1; even && r < runs; ++r) even = names_of(r * per_run, per_run) == first_run;
    if (even) {
      const std::string signature = kernels_signature(first_run);
      for (size_t r = 0; r < runs; ++r) add(key.second, signature, total_of(r * per_run, per_run));
    } else {
      // Which kernel belonged to which run is lost: one run of the mean, under every name seen.
      std::vector<std::string_view> names = names_of(0, ks.size());
      std::sort(names.begin(), names.end());
      names.erase(std::unique(names.begin(), names.end()), names.end());
      add(key.second, kernels_signature(names) + " (mean of the runs)",
          total_of(0, ks.size()) / static_cast<double>(runs));
    }
  }
  return groups;
}

}  // namespace ts
