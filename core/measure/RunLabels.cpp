#include "measure/RunLabels.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "measure/RunSettings.hpp"

namespace ts {
namespace {

// "2026-12-02T14:05:33Z" -> "2026-12-02 14:05": runs started within a minute are one session.
std::string start_minute(const std::string& started_at) {
  std::string text = started_at.substr(0, std::min<size_t>(started_at.size(), 16));
  std::replace(text.begin(), text.end(), 'T', ' ');
  return text;
}

struct RunFields {
  std::string collector, implementation, scope, device, started;
};

RunFields fields_of(const RunInfo& run) {
  const RunSettings settings = read_run_settings(run.start.settings_json);
  RunFields f;
  f.collector = run.start.collector;
  f.implementation = settings.implementation.value_or("");
  if (settings.timing_scope) f.scope = "timing " + std::string(to_string(*settings.timing_scope));
  f.device = run.start.device.name.empty() ? std::string() : "on " + run.start.device.name;
  f.started = start_minute(run.started_at);
  return f;
}

}  // namespace

std::vector<std::string> run_labels(const std::vector<RunInfo>& runs) {
  std::vector<RunFields> fields;
  fields.reserve(runs.size());
  for (const RunInfo& r : runs) fields.push_back(fields_of(r));
  using Member = std::string RunFields::*;
  const std::array<Member, 5> members = {&RunFields::collector, &RunFields::implementation,
                                         &RunFields::scope, &RunFields::device,
                                         &RunFields::started};
  std::vector<Member> differing;
  for (Member m : members)
    if (std::any_of(fields.begin(), fields.end(),
                    [&](const RunFields& f) { return f.*m != fields.front().*m; }))
      differing.push_back(m);
  const bool alike = differing.empty();
  if (alike) differing = {&RunFields::device, &RunFields::collector};

  std::vector<std::string> labels;
  labels.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    std::string label = runs[i].start.workload.empty() ? "?" : runs[i].start.workload;
    for (Member m : differing) {
      const std::string& value = fields[i].*m;
      if (value.empty()) continue;
      // "bert-base on H100, host" when alike; otherwise every field after a comma.
      label += (alike && m == &RunFields::device) ? " " : ", ";
      label += value;
    }
    labels.push_back(std::move(label));
  }
  return labels;
}

std::optional<int64_t> most_interesting_run(const std::vector<RunInfo>& runs,
                                            const std::string& open_arch_hash) {
  const RunInfo* best = nullptr;
  auto rank = [&](const RunInfo& r) {
    const std::string& hash = r.start.device.arch_hash;
    return std::make_tuple(!open_arch_hash.empty() && hash == open_arch_hash, !hash.empty(),
                           r.status == RunStatus::complete, r.id);
  };
  for (const RunInfo& r : runs)
    if (r.measurement_count > 0 && (!best || rank(r) > rank(*best))) best = &r;
  if (!best) return std::nullopt;
  return best->id;
}

}  // namespace ts
