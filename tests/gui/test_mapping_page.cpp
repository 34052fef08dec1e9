// The Mapping page at 1280x800 (issue 22): "bound by" is in view without scrolling sideways, the
// long columns give way (cut short, whole in their tooltips), and a line explains "M=10/2"; its
// footprints are the bytes the capacity check counts.
#include <QApplication>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTabWidget>
#include <QTreeView>
#include <functional>
#include <map>
#include <vector>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "MappingPage.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "common/ByteFormat.hpp"
#include "mapper/OperatorEvaluation.hpp"
#include "views/MappingTreeModel.hpp"

using ts::guitest::sample;
using Model = ts::views::MappingTreeModel;

TEST_CASE("the Mapping page at 1280x800 shows 'bound by' and explains tails", "[gui][mapping]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1280, 800);
  window.show();
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  workbench.waitForIdle();
  ts::gui::MappingPage* page = window.mappingPage();
  window.pages()->setCurrentWidget(page);
  QApplication::processEvents();
  REQUIRE(page->model()->rowCount() == 1);
  QTreeView* tree = page->tree();
  QHeaderView* header = tree->header();
  // What the column's cells need (public on the base class; QTreeView's override is protected).
  const auto content = [&](int c) {
    return static_cast<QAbstractItemView*>(tree)->sizeHintForColumn(c);
  };

  // Every column at its content's width would not fit: the page had to make room.
  int natural = 0;
  for (int c = 0; c < Model::kColumnCount; ++c)
    natural += std::max(content(c), header->sectionSizeHint(c));
  const int viewport = tree->viewport()->width();
  INFO("natural width " << natural << " px, viewport " << viewport << " px");
  CHECK(natural > viewport);

  // "bound by" lies inside the viewport, whole (not cut short), with no sideways scrolling.
  const int left = header->sectionViewportPosition(Model::kBoundBy);
  CHECK(left >= 0);
  CHECK(left + header->sectionSize(Model::kBoundBy) <= viewport);
  CHECK(header->sectionSize(Model::kBoundBy) >= content(Model::kBoundBy));
  CHECK(tree->horizontalScrollBar()->maximum() == 0);
  const QModelIndex root = page->model()->index(0, Model::kBoundBy);
  CHECK_FALSE(page->model()->data(root).toString().isEmpty());
  CHECK(tree->viewport()->rect().contains(tree->visualRect(root)));

  // A cell cut short keeps its whole text in the tooltip.
  const QModelIndex loops = page->model()->index(0, Model::kLoops);
  CHECK(page->model()
            ->data(loops, Qt::ToolTipRole)
            .toString()
            .startsWith(page->model()->data(loops).toString()));

  // The tail notation is explained on the page.
  QLabel* legend = page->loopsLegend();
  CHECK(legend->isVisible());
  CHECK(legend->text().contains("M=10/2"));
  CHECK(legend->text().contains("10 iterations"));
  CHECK(legend->text().contains("2 on the last"));
  ts::guitest::save_screenshot(window, "gui-mapping-1280");
}

TEST_CASE("the Mapping page shows each tile's bytes as the capacity check counts them",
          "[gui][mapping]") {
  // The Ascend cube's L0 buffers hold whole 16x16 fractal blocks, and double buffers both copies:
  // the page's "X of capacity" is what the capacity check counts per memory
  // (AnalysisScratch::buffer_bytes of an evaluation made here), padding and copies included (it
  // once doubled but did not pad: L0A shown 768 B, counted 4 KiB).
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  workbench.waitForIdle();
  const Model* model = window.mappingPage()->model();
  const ts::MappingEvaluation& shown = model->evaluation();
  REQUIRE(shown.program);
  const ts::MappingProgram& p = *shown.program;
  ts::AnalysisScratch e;
  ts::evaluate(p, e);
  // The model's rows, depth first, are the program's nodes in order.
  std::vector<QString> footprints;
  std::function<void(const QModelIndex&)> walk = [&](const QModelIndex& parent) {
    for (int r = 0; r < model->rowCount(parent); ++r) {
      const QModelIndex row = model->index(r, 0, parent);
      footprints.push_back(model->data(model->index(r, Model::kFootprint, parent)).toString());
      walk(row);
    }
  };
  walk({});
  REQUIRE(footprints.size() == p.nodes.size());
  int tiles = 0;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const ts::ProgramNode& n = p.nodes[i];
    if (n.kind != ts::MappingNodeKind::tile) continue;
    std::map<int, double> per_memory;
    for (int k = 0; k < p.ntensors; ++k)
      if (n.buffer[k].valid()) per_memory[n.buffer[k].value] += e.buffer_bytes[i * p.ntensors + k];
    for (const auto& [memory, bytes] : per_memory) {
      const QString expected = QString::fromStdString(p.graph->node(ts::NodeId{memory}).name + " " +
                                                      ts::format_bytes(bytes) + " of ");
      INFO(footprints[i].toStdString() << " should hold " << expected.toStdString());
      CHECK(footprints[i].contains(expected));
      ++tiles;
    }
  }
  CHECK(tiles >= 3);
}
