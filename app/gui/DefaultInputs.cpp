#include "DefaultInputs.hpp"

#include <QDir>
#include <QFileInfo>

#include "common/DataDirectory.hpp"

namespace ts::gui {

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

QStringList default_inputs(const QString& working_dir) {
  QStringList files;
  const QString samples = samples_folder(working_dir);
  if (!samples.isEmpty())
    files << samples + "/arch/ascend910b3.yaml" << samples + "/workloads/bert-base.yaml";
  if (const QString db = newest_results_database(working_dir); !db.isEmpty()) files << db;
  return files;
}

}  // namespace ts::gui
