#include "DefaultInputs.hpp"

#include <QDir>
#include <QFileInfo>
#include <exception>

#include "arch/ArchitectureLoader.hpp"
#include "common/DataDirectory.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunLabels.hpp"
#include "measure/RunSettings.hpp"

namespace ts::gui {
namespace {

// The content hash of a graph file, as runs store it; empty when the file does not load (the
// workbench reports why when it opens it).
QString graph_hash(const QString& path) {
  try {
    return QString::fromStdString(hash_text(load_architecture(path.toStdString()).content_hash()));
  } catch (const std::exception&) {
    return {};
  }
}

}  // namespace

QString samples_folder(const QString& working_dir) {
  QStringList candidates{QDir(working_dir).filePath("samples")};
  if (auto data = data_directory())
    candidates << QString::fromStdString((*data / "samples").string());
  for (const QString& candidate : candidates)
    if (QFileInfo(candidate + "/arch/ascend910b3.yaml").exists()) return candidate;
  return {};
}

QString newest_results_database(const QString& working_dir) {
  QFileInfo newest;
  for (const QString& folder : {working_dir, QDir(working_dir).filePath("out")})
    for (const QFileInfo& f :
         QDir(folder).entryInfoList({"*.sqlite", "*.sqlite3"}, QDir::Files | QDir::Readable))
      if (!newest.exists() || f.lastModified() > newest.lastModified()) newest = f;
  return newest.exists() ? newest.filePath() : QString();
}

QString measured_workload_file(const QString& database, const QString& arch_hash,
                               const QString& working_dir) {
  try {
    const ResultStore store(database.toStdString(), ResultStore::Mode::read_only);
    const std::vector<RunInfo> runs = store.runs();
    const std::optional<int64_t> id = most_interesting_run(runs, arch_hash.toStdString());
    for (const RunInfo& r : runs)
      if (id && r.id == *id) {
        const auto file = read_run_settings(r.start.settings_json).workload_file;
        if (!file) return {};
        // `measure` records the path as it was given, relative to where it ran (scripts/run
        // runs it in the folder that holds out/).
        const QString path = QDir(working_dir).filePath(QString::fromStdString(*file));
        return QFileInfo(path).isFile() ? QDir::cleanPath(path) : QString();
      }
  } catch (const std::exception&) {
  }
  return {};
}

QStringList default_inputs(const QString& working_dir) {
  const QDir dir(working_dir);
  const QString samples = samples_folder(working_dir);
  const QString host_graph = dir.filePath("out/host.yaml");
  const QString host_results = dir.filePath("out/host-results.sqlite");
  if (QFileInfo(host_graph).isFile() && QFileInfo(host_results).isFile()) {
    // scripts/run's outputs: the calibrated graph, what was measured on it, and the runs.
    QString workload = measured_workload_file(host_results, graph_hash(host_graph), working_dir);
    if (workload.isEmpty() && !samples.isEmpty()) workload = samples + "/workloads/host-suite.yaml";
    QStringList files{host_graph};
    if (!workload.isEmpty()) files << workload;
    return files << host_results;
  }
  QStringList files;
  if (!samples.isEmpty())
    files << samples + "/arch/ascend910b3.yaml" << samples + "/workloads/bert-base.yaml";
  if (const QString db = newest_results_database(working_dir); !db.isEmpty()) files << db;
  return files;
}

}  // namespace ts::gui
