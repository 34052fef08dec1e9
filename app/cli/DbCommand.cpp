// `tilescope db info|runs|export`: look into a results database. All three open it read-only,
// so they can run while `tilescope measure` is writing to the same file.
#include "DbCommand.hpp"

#include <fmt/format.h>

#include <iostream>

#include "arch/ArchitectureLoader.hpp"
#include "common/AtomicFile.hpp"
#include "common/InputError.hpp"
#include "measure/DatabaseExport.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunLabels.hpp"
#include "measure/RunSettings.hpp"
#include "profile/ArchitectureReference.hpp"

namespace ts::cli {
namespace {

std::string device_text(const DeviceInfo& d) {
  if (d.name.empty() && d.kind.empty()) return "-";
  return d.kind.empty() ? d.name : fmt::format("{} ({})", d.name, d.kind);
}

}  // namespace

int run_db_info(const DbInfoOptions& a) {
  const DatabaseInfo info = database_info(ResultStore(a.db, ResultStore::Mode::read_only));
  if (a.format == "json") {
    std::cout << database_info_json(info);
    return 0;
  }
  std::cout << fmt::format("database        {}\n", a.db);
  std::cout << fmt::format("schema version  {} (this build reads up to {})\n", info.schema_version,
                           ResultStore::kSchemaVersion);
  std::cout << fmt::format("file size       {} bytes ({} bytes of write-ahead log)\n",
                           info.file_bytes, info.wal_bytes);
  std::cout << fmt::format("runs            {} ({} incomplete, {} complete, {} cancelled)\n",
                           info.runs, info.incomplete, info.complete, info.cancelled);
  std::cout << "\ntable           rows\n";
  for (const auto& [table, rows] : info.tables)
    std::cout << fmt::format("{:<14}  {:>4}\n", table, rows);
  return 0;
}

int run_db_runs(const DbRunsOptions& a) {
  const ResultStore store(a.db, ResultStore::Mode::read_only);
  if (a.format == "json") {
    std::cout << runs_json(store);
    return 0;
  }
  const std::vector<RunInfo> runs = store.runs();
  // What tells each run from the others (the GUI's Run box says the same).
  const std::vector<std::string> labels = run_labels(runs);
  size_t collector_w = 9, workload_w = 8, device_w = 6;
  for (const RunInfo& r : runs) {
    collector_w = std::max(collector_w, r.start.collector.size());
    workload_w = std::max(workload_w, r.start.workload.size());
    device_w = std::max(device_w, device_text(r.start.device).size());
  }
  // The label last, unpadded: it is the widest column and the one read for a run's identity.
  std::cout << fmt::format("{:>4}  {:<20}  {:<10}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {}\n", "id",
                           "started", "status", "collector", collector_w, "workload", workload_w,
                           "device", device_w, "measurements", "label");
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    std::cout << fmt::format("{:>4}  {:<20}  {:<10}  {:<{}}  {:<{}}  {:<{}}  {:>12}  {}\n", r.id,
                             r.started_at, to_string(r.status), r.start.collector, collector_w,
                             r.start.workload, workload_w, device_text(r.start.device), device_w,
                             r.measurement_count, labels[i]);
  }
  if (runs.empty()) std::cout << "(no runs)\n";
  return 0;
}

int run_db_export(const DbExportOptions& a) {
  const ResultStore store(a.db, ResultStore::Mode::read_only);
  // A run that recorded its graph without predicting (an import with --arch) takes the
  // predictions correlate stored under that graph.
  std::string graph_hash;
  if (const std::optional<RunInfo> info = store.run(run_to_read(store, a.run));
      info && info->start.device.arch_hash.empty())
    if (const std::string file = recorded_arch_file(*info); !file.empty())
      graph_hash = hash_text(load_architecture(resolve_architecture_option(file)).content_hash());
  const RunExport run = export_run(store, a.run, graph_hash);
  const std::string text = a.format == "json" ? run_export_json(run) : run_export_csv(run);
  if (a.out.empty())
    std::cout << text;
  else
    write_file_atomically(a.out, text);
  return 0;
}

}  // namespace ts::cli
