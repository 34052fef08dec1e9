// The Compare page: the open graph beside an added one on the open workload. Its figures are
// core's ArchitectureComparison, so they must equal what `tilescope compare` computes (through
// core here: compare_graph_files, the function the command calls); an edit of the open graph
// moves its side live; until a second graph is added the page says what to do.
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QGraphicsItem>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QUndoStack>
#include <cmath>

#include "ArchitecturePage.hpp"
#include "ComparePage.hpp"
#include "ComparisonRunner.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "common/QuantityFormat.hpp"
#include "report/GraphComparison.hpp"
#include "views/ArchitectureScene.hpp"
#include "views/ArchitectureView.hpp"
#include "views/ComparisonBars.hpp"
#include "views/ComparisonTableModel.hpp"
#include "views/QCustomPlotInclude.hpp"

using ts::guitest::sample;

namespace {

struct CompareWindow {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::ComparePage* page = window.comparePage();

  CompareWindow() {
    window.resize(1400, 860);
    window.show();
    window.pages()->setCurrentWidget(page);
    REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h100.yaml")));
    REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-large.yaml")));
    settle();
  }
  void settle() {
    workbench.waitForIdle();
    page->runner()->waitForIdle();
    workbench.waitForIdle();
    page->runner()->waitForIdle();
  }
};

}  // namespace

TEST_CASE("the Compare page equals `tilescope compare` on H100 and H200 for BERT-large",
          "[gui][compare][slow]") {
  CompareWindow w;
  // One graph open: the empty state says to add a second one, and no table or plot shows.
  REQUIRE_FALSE(w.page->runner()->comparison());
  CHECK(w.page->emptyState()->isVisibleTo(w.page));
  CHECK(w.page->emptyState()->text().contains("Add a second graph"));
  CHECK_FALSE(w.page->table()->isVisibleTo(w.page));

  REQUIRE(w.page->runner()->addGraph(sample("arch/nvidia-h200.yaml")));
  w.settle();
  REQUIRE(w.page->runner()->comparison());
  CHECK_FALSE(w.page->emptyState()->isVisibleTo(w.page));
  CHECK(w.page->table()->isVisibleTo(w.page));
  ts::guitest::save_screenshot(w.window, "gui-compare");

  // What `tilescope compare --arch nvidia-h100.yaml --arch nvidia-h200.yaml --workload
  // bert-large.yaml` computes, with its default options (the GUI's mapper options are the CLI's).
  const ts::ArchitectureComparison expected = ts::compare_graph_files(
      {{"h100", sample("arch/nvidia-h100.yaml").toStdString()},
       {"h200", sample("arch/nvidia-h200.yaml").toStdString()}},
      sample("workloads/bert-large.yaml").toStdString(), {}, ts::SourceLocation{"test", 0, 0});
  const ts::ArchitectureComparison& shown = *w.page->runner()->comparison();
  REQUIRE(shown.operators.size() == expected.operators.size());
  REQUIRE(shown.operators.size() == 13);
  for (size_t o = 0; o < expected.operators.size(); ++o) {
    INFO(expected.operators[o].name);
    CHECK(shown.operators[o].name == expected.operators[o].name);
    for (size_t g = 0; g < 2; ++g) {
      const ts::TimeOnGraph& a = shown.operators[o].on_graph[g];
      const ts::TimeOnGraph& b = expected.operators[o].on_graph[g];
      CHECK(a.device_us == Approx(b.device_us).epsilon(1e-12));
      CHECK(a.launch_us == Approx(b.launch_us).epsilon(1e-12));
      CHECK(a.bound_by == b.bound_by);
      CHECK(a.bound_moved == b.bound_moved);
    }
    CHECK(shown.operators[o].on_graph[1].speedup ==
          Approx(expected.operators[o].on_graph[1].speedup).epsilon(1e-12));
  }
  CHECK(shown.total[1].time_us() == Approx(expected.total[1].time_us()).epsilon(1e-12));
  CHECK(shown.total[0].bound_by == expected.total[0].bound_by);

  // The table writes the same figures as the CLI's table (format_quantity), the bars hold them.
  const ts::views::ComparisonTableModel* model = w.page->model();
  REQUIRE(model->rowCount() == 14);  // 13 operators and the total
  for (int o = 0; o < 13; ++o) {
    const ts::TimeOnGraph& b = expected.operators[static_cast<size_t>(o)].on_graph[1];
    CHECK(model->index(o, model->timeColumn(1)).data().toString().toStdString() ==
          ts::format_quantity(b.time_us() * 1e-6, "s"));
    CHECK(model->index(o, model->boundColumn(1)).data().toString().toStdString() == b.bound_by);
  }
  CHECK(model->index(13, 0).data().toString() == "total");
  // The bars are the report's time figure (views/ComparisonBars): one series per graph, in the
  // graphs' order; operator o's key is 13 - o (the first on top), so the data, sorted by key,
  // hold the operators last to first.
  QCustomPlot* plot = w.page->plot();
  REQUIRE(plot->plottableCount() == 2);
  REQUIRE(w.page->bars().bars.size() == 2);
  CHECK(w.page->bars().left_out == 0);
  for (int g = 0; g < 2; ++g) {
    QCPBars* bars = w.page->bars().bars[static_cast<size_t>(g)];
    REQUIRE(bars == plot->plottable(g));
    CHECK(bars->brush().color() == ts::views::comparison_graph_colour(static_cast<size_t>(g)));
    REQUIRE(bars->data()->size() == 13);
    for (int o = 0; o < 13; ++o) {
      const auto bar = bars->data()->at(12 - o);
      CHECK(bar->key == 13 - o);
      CHECK(bar->value == Approx(expected.operators[static_cast<size_t>(o)].on_graph[g].time_us()));
    }
  }
  // A second fill (a palette change redraws) leaves one series per graph, not four.
  QEvent palette_change(QEvent::PaletteChange);
  QApplication::sendEvent(w.page, &palette_change);
  CHECK(plot->plottableCount() == 2);
  CHECK(plot->findChildren<QCPBarsGroup*>(Qt::FindDirectChildrenOnly).size() == 1);
}

TEST_CASE("an edit of the open graph moves its side of the comparison live",
          "[gui][compare][slow]") {
  CompareWindow w;
  REQUIRE(w.page->runner()->addGraph(sample("arch/nvidia-h200.yaml")));
  w.settle();
  REQUIRE(w.page->runner()->comparison());
  const ts::ArchitectureComparison before = *w.page->runner()->comparison();
  // H100's launch overhead is 4 us (samples/arch/nvidia-h100.yaml); at 20 us every operator on
  // A takes 16 us more with its device time unchanged (the mappings are the same: launch
  // overhead does not enter the device time the mapper minimises), and B does not move.
  w.workbench.whatIf()->editParameter("launch_overhead", 20e-6);
  w.settle();
  REQUIRE(w.page->runner()->comparison());
  const ts::ArchitectureComparison& after = *w.page->runner()->comparison();
  CHECK(after.graphs[0].name.find("(edited)") != std::string::npos);
  for (size_t o = 0; o < after.operators.size(); ++o) {
    INFO(after.operators[o].name);
    const auto& a0 = before.operators[o].on_graph;
    const auto& a1 = after.operators[o].on_graph;
    CHECK(a0[0].launch_us == Approx(4));
    CHECK(a1[0].launch_us == Approx(20));
    // The search starts from the mapping shown and keeps it unless it finds a faster one: the
    // device time never grows, and may shrink where the first search had not converged.
    CHECK(a1[0].device_us <= a0[0].device_us * (1 + 1e-9));
    CHECK(a1[1].time_us() == a0[1].time_us());
    // Speed-up of B over A: (A + 16 us) / B, A as searched again.
    CHECK(a1[1].speedup == Approx((a1[0].device_us + 20) / a0[1].time_us()));
  }
  CHECK(after.total[0].time_us() <=
        before.total[0].time_us() + 16.0 * static_cast<double>(after.operators.size()) + 1e-6);
  CHECK(after.total[0].time_us() >=
        before.total[0].time_us() + 15.0 * static_cast<double>(after.operators.size()));
  // Undo puts the overhead back.
  w.workbench.whatIf()->undoStack()->undo();
  w.settle();
  REQUIRE(w.page->runner()->comparison());
  CHECK(w.page->runner()->comparison()->total[0].time_us() <= before.total[0].time_us() + 1e-6);
  CHECK(w.page->runner()->comparison()->operators[0].on_graph[0].launch_us == Approx(4));
}

TEST_CASE("the Compare page refuses a bad graph with the loader's line and keeps what it has",
          "[gui][compare]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  ts::gui::ComparisonRunner* runner = window.comparePage()->runner();
  const QString broken = QString(TILESCOPE_ROOT) + "/tests/fixtures/arch/unknown-node-edge.yaml";
  CHECK_FALSE(runner->addGraph(broken));
  CHECK(window.errorCount() == 1);
  CHECK(runner->addedGraphs().isEmpty());
  CHECK(window.logPanel()->toPlainText().contains(broken + ":15:"));
  // Nothing open at all: the page says to open a graph and a workload first.
  CHECK(window.comparePage()->emptyState()->text().contains("Open an architecture graph"));
}

TEST_CASE("the Compare page's predictions show progress and stop on Cancel",
          "[gui][compare][slow]") {
  CompareWindow w;  // the open graph's predictions on the default budget
  // An unbounded budget from here on (as tests/gui/test_gui_cancel.cpp): the added graph's first
  // search would run for hours, so only Cancel can end it.
  ts::MapperOptions unbounded;
  unbounded.budget = uint64_t(1) << 62;
  w.workbench.whatIf()->setMapperOptions(unbounded);
  ts::gui::ComparisonRunner* runner = w.page->runner();
  QSignalSpy busy(runner, &ts::gui::ComparisonRunner::busyChanged);
  REQUIRE(runner->addGraph(sample("arch/nvidia-h200.yaml")));
  CHECK(runner->busy());
  CHECK(runner->state().startsWith("Predicting"));
  QTest::qWait(300);  // the toolbar lays out its shown widgets on its next event
  CHECK(w.page->findChild<QProgressBar*>("compareProgress")->isVisibleTo(w.page));
  QElapsedTimer clock;
  clock.start();
  runner->cancel();
  REQUIRE((busy.count() >= 2 || busy.wait(10000)));  // true, then false
  CHECK_FALSE(busy.last().at(0).toBool());
  WARN("the search stopped " << clock.elapsed() << " ms after Cancel");
  runner->waitForIdle();
  CHECK_FALSE(runner->comparison());
  CHECK(runner->state().startsWith("Predictions cancelled"));
  CHECK(w.page->emptyState()->text() == runner->state());
  // Predict again, on the default budget, completes it.
  w.workbench.whatIf()->setMapperOptions({});
  runner->predictAgain();
  w.settle();
  CHECK(runner->comparison());
}

TEST_CASE("the Compare page draws the workload's energy per node where the graphs price it",
          "[gui][compare][energy]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::ComparePage* page = window.comparePage();
  window.resize(1400, 860);
  window.show();
  window.pages()->setCurrentWidget(page);
  auto settle = [&] {
    for (int i = 0; i < 2; ++i) {
      workbench.waitForIdle();
      page->runner()->waitForIdle();
    }
  };
  REQUIRE(
      workbench.whatIf()->openArchitecture(sample("arch/timeloop-simple_weight_stationary.yaml")));
  REQUIRE(
      workbench.whatIf()->openWorkload(sample("workloads/timeloop-simple_weight_stationary.yaml")));
  settle();
  REQUIRE(page->runner()->addGraph(sample("arch/timeloop-simple_output_stationary.yaml")));
  settle();
  REQUIRE(page->runner()->comparison());
  const ts::ArchitectureComparison& c = *page->runner()->comparison();
  REQUIRE(c.total[0].energy_j);
  QComboBox* kind = page->barsKind();
  const int energy = kind->findData(static_cast<int>(ts::views::ComparisonBarsKind::energy));
  REQUIRE(energy >= 0);
  kind->setCurrentIndex(energy);
  // One bar per node per graph, at the node's summed energy in µJ (both graphs have the same
  // seven nodes: DRAM, the shared_glb, the pe_spad, three registers and the MACs).
  REQUIRE(page->bars().bars.size() == 2);
  for (size_t g = 0; g < 2; ++g) {
    const std::vector<ts::NodeEnergyTotal> nodes = ts::workload_energy_by_node(c.graphs[g]);
    REQUIRE(nodes.size() == 7);
    QCPBars* bars = page->bars().bars[g];
    REQUIRE(bars->data()->size() == 7);
    double sum = 0;
    for (int i = 0; i < 7; ++i) sum += bars->data()->at(i)->value;
    CHECK(sum == Approx(*c.total[g].energy_j * 1e6));
  }
}

TEST_CASE("the Operators table gives each operator's energy and its split per node",
          "[gui][operators][energy]") {
  ts::gui::Workbench workbench;
  REQUIRE(
      workbench.whatIf()->openArchitecture(sample("arch/timeloop-simple_weight_stationary.yaml")));
  REQUIRE(
      workbench.whatIf()->openWorkload(sample("workloads/timeloop-simple_weight_stationary.yaml")));
  workbench.waitForIdle();
  auto* model = workbench.whatIf()->operators();
  REQUIRE(model->rowCount() == 1);
  REQUIRE(model->row(0).fixed);
  const ts::EnergyReport& e = model->row(0).fixed->prediction.energy;
  REQUIRE(e.known);
  using Model = ts::views::OperatorTableModel;
  const QModelIndex cell = model->index(0, Model::kEnergy);
  CHECK(model->data(cell).toString().toStdString() == ts::format_quantity(e.total_j, "J"));
  CHECK(model->data(cell, Model::SortRole).toDouble() == Approx(e.total_j));
  // The tooltip lists every node, the largest first.
  const QString tip = model->data(cell, Qt::ToolTipRole).toString();
  for (const ts::NodeEnergy& n : e.nodes) CHECK(tip.contains(QString::fromStdString(n.name)));
  CHECK((tip.startsWith("DRAM") || tip.startsWith("shared_glb")));

  // A GPU graph gives no energy figures: "unknown", and the tooltip says so.
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h100.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/vit-b16.yaml")));
  workbench.waitForIdle();
  REQUIRE(model->rowCount() > 0);
  CHECK(model->data(model->index(0, Model::kEnergy)).toString() == "unknown");
  CHECK(model->data(model->index(0, Model::kEnergy), Qt::ToolTipRole)
            .toString()
            .contains("energy unknown"));
}

TEST_CASE("the Architecture page colours each node by its share of the operator's energy",
          "[gui][architecture][energy]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  window.resize(1400, 860);
  window.show();
  REQUIRE(
      workbench.whatIf()->openArchitecture(sample("arch/timeloop-simple_weight_stationary.yaml")));
  REQUIRE(
      workbench.whatIf()->openWorkload(sample("workloads/timeloop-simple_weight_stationary.yaml")));
  workbench.waitForIdle();
  window.selectOperator(0);
  const ts::EnergyReport& e = workbench.whatIf()->operators()->row(0).fixed->prediction.energy;
  REQUIRE(e.known);
  ts::views::ArchitectureScene* scene = window.architecturePage()->view()->architectureScene();
  const ts::ArchitectureGraph& g = *workbench.whatIf()->graph();
  for (const ts::NodeEnergy& n : e.nodes) {
    INFO(n.name);
    const auto* item = dynamic_cast<const QAbstractGraphicsShapeItem*>(
        scene->nodeItem(g.find_node(n.name)->index()));
    REQUIRE(item);
    CHECK(item->brush().color() ==
          ts::views::ArchitectureScene::energyColour(n.total_j() / e.total_j));
  }
  // The hottest node is the deepest red: DRAM or the shared_glb moves the most words.
  CHECK(ts::views::ArchitectureScene::energyColour(1).green() <
        ts::views::ArchitectureScene::energyColour(0.1).green());
}
