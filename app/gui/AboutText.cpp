#include "AboutText.hpp"

#include <fmt/core.h>
#include <sqlite3.h>

#include <QDir>
#include <QFileInfo>
#include <QtGlobal>
#include <filesystem>

#include "common/DataDirectory.hpp"
#include "views/QCustomPlotInclude.hpp"

#if __has_include(<nlohmann/json.hpp>)
#include <nlohmann/json.hpp>
#endif
#if __has_include(<oneapi/tbb/version.h>)
#include <oneapi/tbb/version.h>
#endif
#if __has_include(<graphviz/graphviz_version.h>)
#include <graphviz/graphviz_version.h>
#endif

namespace ts::gui {

QString about_text() {
  QStringList libraries;
  libraries << QString("Qt %1 (built against %2)").arg(qVersion(), QT_VERSION_STR);
  libraries << QString("QCustomPlot %1").arg(QCUSTOMPLOT_VERSION_STR);
  libraries << QString("SQLite %1").arg(sqlite3_libversion());
  libraries << QString("fmt %1.%2.%3")
                   .arg(FMT_VERSION / 10000)
                   .arg(FMT_VERSION / 100 % 100)
                   .arg(FMT_VERSION % 100);
#ifdef NLOHMANN_JSON_VERSION_MAJOR
  libraries << QString("nlohmann-json %1.%2.%3")
                   .arg(NLOHMANN_JSON_VERSION_MAJOR)
                   .arg(NLOHMANN_JSON_VERSION_MINOR)
                   .arg(NLOHMANN_JSON_VERSION_PATCH);
#endif
#ifdef TBB_VERSION_MAJOR
  libraries << QString("oneTBB %1.%2").arg(TBB_VERSION_MAJOR).arg(TBB_VERSION_MINOR);
#endif
#ifdef PACKAGE_VERSION
  libraries << QString("Graphviz %1").arg(PACKAGE_VERSION);
#endif
  return QString(
             "<h3>tilescope %1</h3>"
             "<p>A performance-analysis workbench for deep-learning hardware: architecture "
             "graphs, tile-centric mappings, latency prediction, training simulation and "
             "measurements.</p><p>Built with: %2.</p>")
      .arg(TILESCOPE_VERSION, libraries.join(", "));
}

QString documentation_folder(const QString& working_dir) {
  namespace fs = std::filesystem;
  QStringList candidates;
  if (const auto data = data_directory()) {
    // Installed: <prefix>/share/tilescope beside <prefix>/share/doc/tilescope/docs.
    candidates << QString::fromStdString(
        (data->parent_path() / "doc" / "tilescope" / "docs").string());
    // A build tree: share/tilescope/samples links into the source tree, whose docs/ is beside it.
    std::error_code ec;
    const fs::path samples = fs::canonical(*data / "samples", ec);
    if (!ec) candidates << QString::fromStdString((samples.parent_path() / "docs").string());
  }
  candidates << QDir(working_dir).filePath("docs");
  for (const QString& candidate : candidates)
    if (QFileInfo(candidate + "/gui.md").isFile()) return QDir::cleanPath(candidate);
  return {};
}

}  // namespace ts::gui
