// An empty workspace: every page that can be empty says what to open instead of drawing an empty
// table, picture or axis; Help offers the documentation and About with versions.
#include <QAction>
#include <QLabel>
#include <QTableView>

#include "AboutText.hpp"
#include "ArchitecturePage.hpp"
#include "ComparePage.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "MappingPage.hpp"
#include "OperatorsPage.hpp"
#include "SweepPage.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/CorrelationView.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelineView.hpp"

using ts::guitest::sample;

TEST_CASE("every page of an empty workspace shows what to open", "[gui][empty]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1280, 800);
  window.show();
  // One label per page, and what it must say; each shown instead of the page's contents.
  struct Page {
    QWidget* page;
    QLabel* label;
    QString says;
  };
  const std::vector<Page> pages = {
      {window.operatorsPage(), window.operatorsPage()->emptyState(), "No workload open"},
      {window.architecturePage(), window.architecturePage()->emptyState(),
       "No architecture graph open"},
      {window.mappingPage(), window.mappingPage()->emptyState(), "No mapping to show"},
      {window.correlationView(), window.correlationView()->findChild<QLabel*>("message"),
       "No measurements open"},
      {window.comparePage(), window.comparePage()->emptyState(),
       "Open an architecture graph and a workload first"},
      {window.sweepPage(), window.sweepPage()->emptyState(), "No sweep to show"},
  };
  for (const Page& p : pages) {
    INFO(p.says.toStdString());
    REQUIRE(p.label);
    window.pages()->setCurrentWidget(p.page);
    QApplication::processEvents();
    CHECK(p.label->isVisible());
    CHECK(p.label->text().contains(p.says));
  }
  CHECK_FALSE(window.operatorsPage()->table()->isVisibleTo(window.operatorsPage()));
  CHECK_FALSE(window.comparePage()->table()->isVisibleTo(window.comparePage()));
  // The timeline: its summary line says what to open, and no chart (it drew an axis 0..1 ns).
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  CHECK(window.timelineView()->summaryText().contains("No simulation open"));
  CHECK_FALSE(window.timelineView()->plot()->isVisible());
  ts::guitest::save_screenshot(window, "gui-empty-timeline");

  // A workload without a graph: the operators page asks for the graph next.
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  window.pages()->setCurrentWidget(window.operatorsPage());
  QApplication::processEvents();
  CHECK(window.operatorsPage()->emptyState()->text().contains("No architecture graph open"));
  // With the graph too, the messages give way to the contents.
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h100.yaml")));
  workbench.waitForIdle();
  QApplication::processEvents();
  CHECK_FALSE(window.operatorsPage()->emptyState()->isVisible());
  CHECK(window.operatorsPage()->table()->isVisible());
  window.pages()->setCurrentWidget(window.architecturePage());
  QApplication::processEvents();
  CHECK_FALSE(window.architecturePage()->emptyState()->isVisible());
  // The Compare page now waits for a second graph.
  window.pages()->setCurrentWidget(window.comparePage());
  QApplication::processEvents();
  CHECK(window.comparePage()->emptyState()->text().contains("Add a second graph"));
}

TEST_CASE("Help has the documentation and About with the versions", "[gui][help]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  CHECK(window.findChild<QAction*>("helpDocumentation"));
  CHECK(window.findChild<QAction*>("helpAbout"));
  const QString about = ts::gui::about_text();
  CHECK(about.contains(QString("tilescope ") + TILESCOPE_VERSION));
  CHECK(about.contains(QString("Qt ") + qVersion()));
  CHECK(about.contains(QString("QCustomPlot ") + QCUSTOMPLOT_VERSION_STR));
  CHECK(about.contains("SQLite 3."));
  // From the source tree's build, the docs are the source tree's (gui.md among them).
  const QString docs = ts::gui::documentation_folder(QDir::tempPath());
  REQUIRE_FALSE(docs.isEmpty());
  CHECK(QFileInfo(docs + "/gui.md").isFile());
  CHECK(QFileInfo(docs + "/compare.md").isFile());
}
