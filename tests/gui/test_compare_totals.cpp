// The Compare page's totals are read first: a row above the bars and the per-operator table, in
// view without scrolling, holding the figures of the table's own total row.
#include <QAbstractItemModel>
#include <QTabWidget>
#include <QTableView>

#include "ComparePage.hpp"
#include "ComparisonRunner.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/ComparisonTableModel.hpp"

using ts::guitest::sample;

TEST_CASE("the Compare page shows the totals above the per-operator table",
          "[gui][compare][slow]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::ComparePage* page = window.comparePage();
  window.resize(1400, 860);
  window.show();
  window.pages()->setCurrentWidget(page);
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h100.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-large.yaml")));
  CHECK_FALSE(page->totals()->isVisibleTo(page));  // nothing compared yet
  REQUIRE(page->runner()->addGraph(sample("arch/nvidia-h200.yaml")));
  for (int i = 0; i < 2; ++i) {
    workbench.waitForIdle();
    page->runner()->waitForIdle();
  }
  REQUIRE(page->runner()->comparison());

  QTableView* totals = page->totals();
  REQUIRE(totals->isVisibleTo(page));
  const QAbstractItemModel* shown = totals->model();
  const ts::views::ComparisonTableModel* model = page->model();
  REQUIRE(shown->rowCount() == 1);
  const int total_row = model->rowCount() - 1;
  REQUIRE(model->index(total_row, 0).data().toString() == "total");
  for (int column = 0; column < model->columnCount(); ++column) {
    INFO("column " << column);
    CHECK(shown->index(0, column).data() == model->index(total_row, column).data());
  }

  // Above the table and the bars, and whole inside the page as it opens.
  const int totals_top = totals->mapTo(page, QPoint(0, 0)).y();
  const int totals_bottom = totals_top + totals->height();
  CHECK(totals_bottom <= page->table()->mapTo(page, QPoint(0, 0)).y());
  CHECK(totals_bottom <= page->plot()->mapTo(page, QPoint(0, 0)).y());
  CHECK(totals_bottom <= page->height());
  // The row itself is in view, not hidden under the header or cut by the fixed height.
  CHECK(totals->visualRect(shown->index(0, 0)).bottom() <= totals->viewport()->height());
}
