#include "measure/RunCatalog.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "measure/RunLabels.hpp"
#include "measure/RunSettings.hpp"

namespace ts {
namespace {

bool same_device(const DeviceInfo& a, const DeviceInfo& b) {
  return a.name == b.name && a.kind == b.kind && a.arch_hash == b.arch_hash &&
         a.properties_json == b.properties_json;
}

std::string catalog_run_label(const RunInfo& run, const std::string& label) {
  return fmt::format("run {}: {}, {} measurements ({})", run.id, label, run.measurement_count,
                     to_string(run.status));
}

// Devices that read the same ("NAME (KIND)") are told apart by their place in the catalog.
void number_same_named_devices(std::vector<CatalogDevice>& devices) {
  std::vector<std::string> plain;
  for (const CatalogDevice& d : devices) plain.push_back(d.display_name);
  for (size_t i = 0; i < devices.size(); ++i)
    if (std::count(plain.begin(), plain.end(), plain[i]) > 1)
      devices[i].display_name += fmt::format(" #{}", i + 1);
}

}  // namespace

RunCatalog run_catalog(const std::vector<RunInfo>& runs) {
  RunCatalog catalog;
  const std::vector<std::string> labels = run_labels(runs);  // what tells the runs apart
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    const DeviceInfo& d = r.start.device;
    auto device = std::find_if(catalog.devices.begin(), catalog.devices.end(),
                               [&](const CatalogDevice& c) { return same_device(c.device, d); });
    if (device == catalog.devices.end()) {
      catalog.devices.push_back({d, fmt::format("{} ({})", d.name, d.kind)});
      device = catalog.devices.end() - 1;
    }
    catalog.runs.push_back({r, static_cast<size_t>(device - catalog.devices.begin()),
                            catalog_run_label(r, labels[i]), d.arch_hash.empty(),
                            read_run_settings(r.start.settings_json).workload_file.value_or("")});
  }
  number_same_named_devices(catalog.devices);
  return catalog;
}

std::vector<size_t> RunCatalog::runs_of(size_t device) const {
  std::vector<size_t> of_device;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].device == device) of_device.push_back(i);
  return of_device;
}

const CatalogRun* RunCatalog::find(int64_t run_id) const {
  const auto it = std::find_if(runs.begin(), runs.end(),
                               [&](const CatalogRun& r) { return r.run.id == run_id; });
  return it == runs.end() ? nullptr : &*it;
}

std::optional<size_t> RunCatalog::run_to_open(const std::string& open_arch_hash) const {
  if (runs.empty()) return std::nullopt;
  std::vector<RunInfo> infos;
  infos.reserve(runs.size());
  for (const CatalogRun& r : runs) infos.push_back(r.run);
  // An empty run left by a kill is never opened by default; the newest when none holds a
  // measurement.
  if (const auto id = most_interesting_run(infos, open_arch_hash))
    if (const CatalogRun* run = find(*id)) return static_cast<size_t>(run - runs.data());
  return runs.size() - 1;
}

}  // namespace ts
