// The correlation view: a results database of the open suite opens into the plot, a click on a
// point selects that operator on every page, and the plot builder works headless.
#include <QComboBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "MappingPage.hpp"
#include "OperatorsPage.hpp"
#include "ResultsFixture.hpp"
#include "RunBrowser.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "measure/ResultStore.hpp"
#include "views/CorrelationView.hpp"
#include "views/QCustomPlotInclude.hpp"

using ts::guitest::sample;
using ts::guitest::save_screenshot;

namespace {

// One run of the whole suite on a device named for the graph.
QString make_database(const QString& path) {
  const ts::guitest::BertOnAscend in;
  ts::ResultStore store(path.toStdString());
  ts::guitest::add_run(store, in, in.graph.name, in.workload.operators.size());
  return path;
}

}  // namespace

TEST_CASE("clicking a point of the correlation view selects its operator everywhere",
          "[gui][correlation]") {
  QTemporaryDir dir;
  const QString db = make_database(dir.filePath("bert-base-test.sqlite"));
  ts::gui::Workbench workbench;
  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  REQUIRE(workbench.openFile(db));
  workbench.waitForIdle();
  CHECK(window.errorCount() == 0);
  REQUIRE(browser.points().size() == 13);

  // The table shows the measurements beside the predictions.
  auto* model = workbench.whatIf()->operators();
  const int ffn_up = model->findOperator("ffn_up");
  const int context = model->findOperator("attn_context");
  REQUIRE(ffn_up >= 0);
  REQUIRE(model->row(context).measured_s);
  CHECK(model->data(model->index(context, ts::views::OperatorTableModel::kError)).toString() ==
        QString::asprintf("%+.1f %%", (1 / (1 + 0.04 * context - 0.2) - 1) * 100));

  ts::views::CorrelationView* view = window.correlationView();
  window.pages()->setCurrentWidget(view);
  QApplication::processEvents();
  view->plot()->replot();
  CHECK(view->contents().count == 13);
  CHECK(view->contents().left_out == 0);

  // Click the point of attn_context (not the current operator).
  size_t target = 0;
  for (size_t i = 0; i < browser.points().size(); ++i)
    if (browser.points()[i].op_name == "attn_context") target = i;
  const QPointF at = view->pointPosition(static_cast<int>(target));
  REQUIRE(view->plot()->rect().contains(at.toPoint()));
  CHECK(view->pointAt(at) == static_cast<int>(target));
  QSignalSpy selected(view, &ts::views::CorrelationView::pointSelected);
  QTest::mouseClick(view->plot(), Qt::LeftButton, Qt::NoModifier, at.toPoint());
  REQUIRE(selected.count() == 1);
  CHECK(view->selectedPoint() == static_cast<int>(target));
  const int row = model->findOperator("attn_context");
  CHECK(window.currentOperator() == row);
  CHECK(window.operatorsPage()->currentRow() == row);
  CHECK(window.mappingPage()->shownOperator() == row);
  save_screenshot(window, "gui-correlation");

  // Colour by FLOP terciles (correlate --by size): three groups in the legend.
  auto* grouping = view->findChild<QComboBox*>("grouping");
  REQUIRE(grouping);
  grouping->setCurrentText("size");
  Q_EMIT grouping->textActivated("size");
  CHECK(view->contents().series.size() == 3);
  CHECK(view->selectedPoint() == static_cast<int>(target));  // the selection stays

  // And the other way: choosing a row in the table moves the plot's selection.
  window.operatorsPage()->selectRow(ffn_up);
  CHECK(window.currentOperator() == ffn_up);
  CHECK(browser.points()[static_cast<size_t>(view->selectedPoint())].op_name == "ffn_up");
}

TEST_CASE("the correlation plot builder draws headless and reports what it leaves out",
          "[gui][correlation]") {
  QCustomPlot plot;
  plot.resize(640, 480);
  ts::views::CorrelationPlotData data;
  data.title = "builder test";
  data.points = {{10e-6, 11e-6, "a", "matmul"},
                 {20e-6, 18e-6, "b", "matmul"},
                 {5e-6, 5.5e-6, "c", "elementwise"},
                 {0, 3e-6, "failed", "elementwise"},
                 {INFINITY, 3e-6, "inf", "matmul"}};
  const auto contents = ts::views::fill_correlation_plot(plot, data, plot.palette());
  CHECK(contents.left_out == 2);
  CHECK(contents.count == 3);
  CHECK(contents.series.size() == 2);  // matmul, elementwise
  CHECK(plot.xAxis->scaleType() == QCPAxis::stLogarithmic);
  CHECK(plot.yAxis->scaleType() == QCPAxis::stLogarithmic);
  QDir().mkpath(TILESCOPE_SCREENSHOTS);
  REQUIRE(plot.savePng(TILESCOPE_SCREENSHOTS "/correlation-builder.png", 640, 480));
  const QImage image(TILESCOPE_SCREENSHOTS "/correlation-builder.png");
  CHECK(image.width() == 640);
}

TEST_CASE("the plots follow the palette (dark mode)", "[gui][correlation]") {
  const QPalette light = QApplication::palette();
  QPalette dark = light;
  dark.setColor(QPalette::Window, QColor(40, 40, 40));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::Text, QColor(230, 230, 230));
  dark.setColor(QPalette::WindowText, QColor(230, 230, 230));
  ts::views::CorrelationView view;
  view.resize(800, 600);
  ts::views::CorrelationPlotData data;
  data.points = {{10e-6, 11e-6, "a", "matmul"}, {20e-6, 18e-6, "b", "elementwise"}};
  view.setData(data);
  view.setPalette(dark);  // what a switch to dark mode sends: QEvent::PaletteChange
  QApplication::processEvents();
  CHECK(view.plot()->xAxis->tickLabelColor() == QColor(230, 230, 230));
  const QImage image = view.plot()->toPixmap(800, 600).toImage();
  CHECK(image.pixelColor(5, 300) == QColor(30, 30, 30));  // the background is the dark base
  QDir().mkpath(TILESCOPE_SCREENSHOTS);
  CHECK(image.save(TILESCOPE_SCREENSHOTS "/correlation-dark.png"));
}

TEST_CASE("choosing a device offers its runs only", "[gui][correlation]") {
  // Runs 1 and 3 on one device (13 and 8 operators), run 2 on another (5 operators).
  QTemporaryDir dir;
  const QString db = dir.filePath("two-devices.sqlite");
  {
    const ts::guitest::BertOnAscend in;
    ts::ResultStore store(db.toStdString());
    ts::guitest::add_run(store, in, "chip A", 13);
    ts::guitest::add_run(store, in, "chip B", 5);
    ts::guitest::add_run(store, in, "chip A", 8);
  }
  ts::gui::Workbench workbench;
  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  window.pages()->setCurrentWidget(window.correlationView());
  REQUIRE(workbench.openFile(db));
  workbench.waitForIdle();
  CHECK(window.errorCount() == 0);

  // It opens on the latest run's device, offering that device's runs, the latest shown.
  REQUIRE(browser.devices() == QStringList{"chip A (synthetic)", "chip B (synthetic)"});
  CHECK(browser.currentDevice() == 0);
  REQUIRE(browser.runs().size() == 2);
  CHECK(browser.runs()[0].startsWith("run 1: "));
  CHECK(browser.runs()[1].startsWith("run 3: "));
  CHECK(browser.currentRun() == 1);
  CHECK(browser.points().size() == 8);

  auto* device = window.correlationView()->findChild<QComboBox*>("device");
  auto* run = window.correlationView()->findChild<QComboBox*>("run");
  auto* overlay = window.correlationView()->findChild<QComboBox*>("overlay");
  REQUIRE(device);
  REQUIRE(run);
  REQUIRE(overlay);
  CHECK(device->count() == 2);
  CHECK(device->isEnabled());
  CHECK(run->count() == 2);
  CHECK(overlay->count() == 4);  // none, and every run whatever its device

  // Choose chip B as a person does: its one run is offered and shown.
  QSignalSpy chosen(window.correlationView(), &ts::views::CorrelationView::deviceChosen);
  device->setCurrentIndex(1);
  Q_EMIT device->activated(1);
  REQUIRE(chosen.count() == 1);
  workbench.waitForIdle();
  CHECK(browser.currentDevice() == 1);
  REQUIRE(browser.runs().size() == 1);
  CHECK(browser.runs()[0].startsWith("run 2: "));
  CHECK(browser.runs()[0].contains("chip B"));
  CHECK(run->count() == 1);
  CHECK(run->currentText().startsWith("run 2: "));
  CHECK(browser.points().size() == 5);
  CHECK(window.correlationView()->contents().count == 5);
  CHECK(overlay->count() == 4);

  // And back to chip A: its first run can be chosen again.
  Q_EMIT device->activated(0);
  workbench.waitForIdle();
  REQUIRE(browser.runs().size() == 2);
  Q_EMIT run->activated(0);
  workbench.waitForIdle();
  CHECK(browser.currentRun() == 0);
  CHECK(browser.points().size() == 13);
  CHECK(window.errorCount() == 0);
}
