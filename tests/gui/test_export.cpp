// Exports: a plot saved as PNG decodes to the plot's size at twice its pixels, SVG and PDF are
// what they say; a table's CSV parses back (core's CSV reader, not the writer's code) to the
// rows and cells the view shows; Ctrl+C copies the selected rows as tab-separated text.
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QImage>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "MappingPage.hpp"
#include "OperatorsPage.hpp"
#include "TableExport.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "trace/CsvMeasurements.hpp"
#include "views/CorrelationView.hpp"
#include "views/PlotExport.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelineView.hpp"

using ts::guitest::sample;

namespace {

QByteArray head_of(const QString& path, int bytes) {
  QFile f(path);
  REQUIRE(f.open(QIODevice::ReadOnly));
  return f.read(bytes);
}

struct LoadedWindow {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  LoadedWindow() {
    window.resize(1280, 800);
    window.show();
    REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h100.yaml")));
    REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
    workbench.waitForIdle();
  }
};

}  // namespace

TEST_CASE("a plot exports as PNG, SVG and PDF", "[gui][export]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1280, 800);
  window.show();
  REQUIRE(
      workbench.openFile(QString(TILESCOPE_ROOT) + "/tests/gui/fixtures/gpt-22b-selene.sim.json"));
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  QCustomPlot* plot = window.timelineView()->plot();
  REQUIRE(plot->width() > 100);
  QTemporaryDir dir;
  const QString png = dir.filePath("timeline.png");
  QString error;
  REQUIRE(ts::views::save_plot(*plot, png, &error));
  const QImage image(png);
  REQUIRE_FALSE(image.isNull());
  // Twice the plot's logical size (save_plot's scale 2, for sharp slides).
  CHECK(image.width() == 2 * plot->width());
  CHECK(image.height() == 2 * plot->height());
  // Not a blank picture: the bars are drawn in more than one colour.
  QSet<QRgb> colours;
  for (int y = 0; y < image.height(); y += 7)
    for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
  CHECK(colours.size() > 3);

  const QString svg = dir.filePath("timeline.svg");
  REQUIRE(ts::views::save_plot(*plot, svg, &error));
  const QByteArray svg_text = head_of(svg, 1 << 20);
  CHECK(svg_text.contains("<svg"));
  CHECK(svg_text.contains(QString("width=\"%1").arg(plot->width()).toUtf8()));

  const QString pdf = dir.filePath("timeline.PDF");  // the suffix in any case
  REQUIRE(ts::views::save_plot(*plot, pdf, &error));
  CHECK(head_of(pdf, 5) == "%PDF-");

  // A folder that does not exist: false and why, nothing written.
  CHECK_FALSE(ts::views::save_plot(*plot, dir.filePath("missing/x.svg"), &error));
  CHECK_FALSE(error.isEmpty());
  CHECK_FALSE(QFile::exists(dir.filePath("missing/x.svg")));

  // The plot offers them on its context menu.
  CHECK(plot->contextMenuPolicy() == Qt::CustomContextMenu);
}

TEST_CASE("the operators table exports CSV that parses back to its rows and cells",
          "[gui][export]") {
  LoadedWindow w;
  QTableView* table = w.window.operatorsPage()->table();
  QSortFilterProxyModel* proxy = w.window.operatorsPage()->proxy();
  // Exported as shown: sorted by latency, filtered to the GEMMs' names with "proj".
  proxy->sort(ts::views::OperatorTableModel::kLatency, Qt::DescendingOrder);
  w.window.operatorsPage()->filter()->setText("proj");
  REQUIRE(proxy->rowCount() >= 2);
  QTemporaryDir dir;
  const QString path = dir.filePath("operators.csv");
  QString error;
  REQUIRE(ts::gui::save_table_csv(*table->model(), path, &error));
  const ts::CsvTable csv = ts::read_csv(path.toStdString());
  REQUIRE(csv.header.size() == static_cast<size_t>(proxy->columnCount()));
  for (int c = 0; c < proxy->columnCount(); ++c)
    CHECK(csv.header[static_cast<size_t>(c)] ==
          proxy->headerData(c, Qt::Horizontal).toString().toStdString());
  REQUIRE(csv.rows.size() == static_cast<size_t>(proxy->rowCount()));
  for (int r = 0; r < proxy->rowCount(); ++r)
    for (int c = 0; c < proxy->columnCount(); ++c)
      CHECK(csv.rows[static_cast<size_t>(r)].fields[static_cast<size_t>(c)] ==
            proxy->index(r, c).data().toString().trimmed().toStdString());
  // The shapes hold spaces ("M=512 N=3072 K=768") and the latency a unit: read back whole.
  CHECK(csv.rows[0].fields[2].find(' ') != std::string::npos);

  // Ctrl+C copies the selected row, under the header, tab-separated.
  w.window.pages()->setCurrentWidget(w.window.operatorsPage());
  table->selectRow(1);
  table->setFocus();
  QApplication::clipboard()->clear();
  QTest::keySequence(table, QKeySequence::Copy);
  const QStringList lines = QApplication::clipboard()->text().split('\n', Qt::SkipEmptyParts);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].split('\t').size() == proxy->columnCount());
  CHECK(lines[1].split('\t')[0] == proxy->index(1, 0).data().toString());
  CHECK(lines[1].split('\t')[2] == proxy->index(1, 2).data().toString());
}

TEST_CASE("the mapping tree exports depth-first with its level", "[gui][export]") {
  LoadedWindow w;
  w.window.selectOperator(0);
  QTreeView* tree = w.window.mappingPage()->tree();
  REQUIRE(tree->model()->rowCount() == 1);
  const QString text = ts::gui::table_csv(*tree->model());
  const ts::CsvTable csv = ts::parse_csv(text.toStdString(), "mapping.csv");
  REQUIRE(csv.header.front() == "level");
  REQUIRE(csv.rows.size() >= 2);
  CHECK(csv.rows[0].fields[0] == "0");  // the root
  CHECK(csv.rows[1].fields[0] == "1");  // its first child, right after it
  const QModelIndex root = tree->model()->index(0, 0);
  CHECK(csv.rows[0].fields[1] == root.data().toString().trimmed().toStdString());
  CHECK(csv.rows[1].fields[1] ==
        tree->model()->index(0, 0, root).data().toString().trimmed().toStdString());
}
