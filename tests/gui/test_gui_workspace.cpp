// A workspace file lists the open inputs: saving one and opening it in a fresh window brings the
// same graph, suite and simulation back; files dropped on the window open like File > Open.
#include <QApplication>
#include <QDropEvent>
#include <QMimeData>
#include <QTemporaryDir>
#include <QUrl>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "Workbench.hpp"
#include "training/SimulationTimeline.hpp"

using ts::guitest::sample;

namespace {
const QString kSimulation = TILESCOPE_ROOT "/tests/gui/fixtures/gpt-22b-selene.sim.json";
}

TEST_CASE("a saved workspace reopens the same inputs", "[gui][workspace]") {
  QTemporaryDir dir;
  const QString workspace = dir.filePath("workspace.yaml");
  {
    ts::gui::Workbench workbench;
    REQUIRE(workbench.openArchitecture(sample("arch/nvidia-h200.yaml")));
    REQUIRE(workbench.openWorkload(sample("workloads/vit-b16.yaml")));
    REQUIRE(workbench.openSimulation(kSimulation));
    REQUIRE(workbench.saveWorkspace(workspace));
    workbench.cancel();
    workbench.waitForIdle();
  }
  ts::gui::Workbench reopened;
  REQUIRE(reopened.openFile(workspace));
  reopened.waitForIdle();
  CHECK(reopened.graph()->name == "nvidia-h200");
  CHECK(reopened.workload()->name == "vit-b16");
  CHECK(reopened.simulation().tracks.size() == 1);
  CHECK(reopened.operators()->rowCount() ==
        static_cast<int>(reopened.workload()->operators.size()));
}

TEST_CASE("files dropped on the window open", "[gui][workspace]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.show();
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(sample("arch/ascend910b3.yaml")),
                QUrl::fromLocalFile(sample("workloads/t5-base.yaml"))});
  // As a drag from a file manager arrives: enter (accepted), then the drop.
  QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  REQUIRE(enter.isAccepted());
  QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  workbench.waitForIdle();
  REQUIRE(workbench.graph());
  CHECK(workbench.graph()->name == "ascend910b3");
  REQUIRE(workbench.workload());
  CHECK(workbench.workload()->name == "t5-base");
  CHECK(window.errorCount() == 0);
}
