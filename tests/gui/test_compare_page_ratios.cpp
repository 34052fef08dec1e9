// The Compare page writes a speed-up below 1 as a ratio ("0.305x"), never with an SI prefix
// ("305 mx"): the H200 open, the Ascend 910B3 added, BERT-large, as `tilescope compare` of the
// two prints it (tests/cli/test_cli_compare_ratios.cpp).
#include <QApplication>
#include <QRegularExpression>
#include <QTableView>
#include <cmath>

#include "ComparePage.hpp"
#include "ComparisonRunner.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/ComparisonTableModel.hpp"

using ts::guitest::sample;

TEST_CASE("the Compare page writes the speed-ups of a slower chip as 0.xxx x", "[gui][compare]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::ComparePage* page = window.comparePage();
  window.resize(1400, 860);
  window.show();
  window.pages()->setCurrentWidget(page);
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h200.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-large.yaml")));
  REQUIRE(page->runner()->addGraph(sample("arch/ascend910b3.yaml")));
  for (int i = 0; i < 2; ++i) {
    workbench.waitForIdle();
    page->runner()->waitForIdle();
  }
  REQUIRE(page->runner()->comparison());
  const ts::ArchitectureComparison& c = *page->runner()->comparison();

  // The page's table shows this model's text (through a sort proxy).
  ts::views::ComparisonTableModel model;
  model.setComparison(c);
  const int column = model.speedupColumn(1);
  const QRegularExpression ratio(QStringLiteral("^([0-9]+(\\.[0-9]+)?)x$"));
  const QRegularExpression prefixed(QStringLiteral("[0-9]\\s?[fpnumkMGTPE]x$"));
  int below_one = 0;
  for (int row = 0; row < model.rowCount(); ++row) {
    const QString text = model.index(row, column).data(Qt::DisplayRole).toString();
    const double value =
        model.index(row, column).data(ts::views::ComparisonTableModel::SortRole).toDouble();
    INFO(text.toStdString() << " " << value);
    CHECK_FALSE(prefixed.match(text).hasMatch());
    const QRegularExpressionMatch m = ratio.match(text);
    REQUIRE(m.hasMatch());
    // Three significant figures of the number itself.
    CHECK(std::abs(m.captured(1).toDouble() - value) <=
          0.5001 * std::pow(10.0, std::floor(std::log10(value)) - 2));
    if (value < 1) {
      ++below_one;
      CHECK(m.captured(1).startsWith(QStringLiteral("0.")));
    }
  }
  // The page's own table says the same in its speed-up column.
  const QAbstractItemModel* shown = page->table()->model();
  REQUIRE(shown->columnCount() == model.columnCount());
  for (int row = 0; row < shown->rowCount(); ++row)
    CHECK_FALSE(
        prefixed.match(shown->index(row, column).data(Qt::DisplayRole).toString()).hasMatch());
  // Every operator and the total: the 910B3 is the slower chip on each.
  CHECK(below_one == static_cast<int>(c.operators.size()) + 1);
}
