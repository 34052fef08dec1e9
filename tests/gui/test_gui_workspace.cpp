// A workspace file lists the open inputs: saving one and opening it in a fresh window brings the
// same graph, suite and simulation back; a broken one (a member that is a list or a map, a
// workspace naming itself or one naming it back) is refused with its one-line message and opens
// nothing; files dropped on the window open like File > Open.
#include <QApplication>
#include <QDropEvent>
#include <QMimeData>
#include <QTemporaryDir>
#include <QUrl>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "RunBrowser.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "training/SimulationTimeline.hpp"

using ts::guitest::sample;

namespace {
const QString kSimulation = TILESCOPE_ROOT "/tests/gui/fixtures/gpt-22b-selene.sim.json";

QString workspace_fixture(const QString& name) {
  return QString(TILESCOPE_ROOT "/tests/fixtures/workspaces/") + name;
}

// The errors a workbench reported while `open` ran.
template <class Open>
QStringList errors_of(ts::gui::Workbench& workbench, Open&& open) {
  QStringList errors;
  const auto connection = QObject::connect(&workbench, &ts::gui::Workbench::message,
                                           [&errors](int severity, const QString& text) {
                                             if (severity == ts::gui::kError) errors << text;
                                           });
  open();
  workbench.waitForIdle();
  QObject::disconnect(connection);
  return errors;
}
}  // namespace

TEST_CASE("a saved workspace reopens the same inputs", "[gui][workspace]") {
  QTemporaryDir dir;
  const QString workspace = dir.filePath("workspace.yaml");
  {
    ts::gui::Workbench workbench;
    REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-h200.yaml")));
    REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/vit-b16.yaml")));
    REQUIRE(workbench.openSimulation(kSimulation));
    REQUIRE(workbench.saveWorkspace(workspace));
    workbench.cancel();
    workbench.waitForIdle();
  }
  ts::gui::Workbench reopened;
  REQUIRE(reopened.openFile(workspace));
  reopened.waitForIdle();
  CHECK(reopened.whatIf()->graph()->name == "nvidia-h200");
  CHECK(reopened.whatIf()->workload()->name == "vit-b16");
  CHECK(reopened.simulation().tracks.size() == 1);
  CHECK(reopened.whatIf()->operators()->rowCount() ==
        static_cast<int>(reopened.whatIf()->workload()->operators.size()));
}

TEST_CASE("a broken workspace is refused with its message and opens nothing", "[gui][workspace]") {
  // Each file's place and message as tests/unit/test_workspace_file.cpp derives them. The first
  // four aborted the GUI (an unchecked as<std::string>()), self.yaml and the cycle overflowed its
  // stack (a workspace opened itself through openFile without end).
  struct Case {
    QString file, location, message_start;
  };
  const QList<Case> cases = {
      {"architecture-list.yaml", ":3:15: ", "expected a path for `architecture`, got a list"},
      {"workload-map.yaml", ":4:3: ", "expected a path for `workload`, got a map"},
      {"results-list.yaml", ":5:3: ", "expected a path for `results`, got a list"},
      {"simulation-map.yaml", ":3:13: ", "expected a path for `simulation`, got a map"},
      {"architecture-number.yaml", ":3:15: ", "expected a path for `architecture`, got '42'"},
      {"unknown-key.yaml", ":4:1: ", "unknown key 'worklaod' in the workspace"},
      {"missing-member.yaml", ":3:11: ", "workload '../workload/no-such-suite.yaml' not found"},
      {"self.yaml",
       ":4:10: ", "workspace '" + workspace_fixture("self.yaml") + "' names itself as its results"},
      {"cycle-a.yaml", ":3:11: ",
       "workspace '" + workspace_fixture("cycle-a.yaml") +
           "' includes itself through cycle-b.yaml"},
      {"cycle-b.yaml", ":3:13: ",
       "workspace '" + workspace_fixture("cycle-b.yaml") +
           "' includes itself through cycle-a.yaml"},
      {"nested.yaml", ":3:15: ", "architecture 'good.yaml' is a workspace"},
  };
  for (const Case& c : cases) {
    INFO(c.file.toStdString());
    ts::gui::Workbench workbench;
    const QString path = workspace_fixture(c.file);
    bool opened = true;
    const QStringList errors = errors_of(workbench, [&] { opened = workbench.openFile(path); });
    CHECK_FALSE(opened);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].startsWith(path + c.location + c.message_start));
    CHECK_FALSE(errors[0].contains('\n'));
    // Refused as a whole: self.yaml's valid architecture is not opened either.
    CHECK_FALSE(workbench.whatIf()->graph());
    CHECK_FALSE(workbench.whatIf()->workload());
  }
}

TEST_CASE("a workspace opens its members by role, relative to itself", "[gui][workspace]") {
  // good.yaml: ../arch/tiny.yaml, ../workload/tiny.yaml and ../csv/gemm-small.csv, from
  // tests/fixtures/workspaces/.
  ts::gui::Workbench workbench;
  bool opened = false;
  const QStringList errors =
      errors_of(workbench, [&] { opened = workbench.openFile(workspace_fixture("good.yaml")); });
  CHECK(opened);
  CHECK(errors == QStringList{});
  REQUIRE(workbench.whatIf()->graph());
  CHECK(workbench.whatIf()->architecturePath() ==
        QString(TILESCOPE_ROOT "/tests/fixtures/arch/tiny.yaml"));
  REQUIRE(workbench.whatIf()->workload());
  CHECK(workbench.whatIf()->workloadPath() ==
        QString(TILESCOPE_ROOT "/tests/fixtures/workload/tiny.yaml"));
  CHECK(workbench.runBrowser()->resultsPath() ==
        QString(TILESCOPE_ROOT "/tests/fixtures/csv/gemm-small.csv"));
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
  REQUIRE(workbench.whatIf()->graph());
  CHECK(workbench.whatIf()->graph()->name == "ascend910b3");
  REQUIRE(workbench.whatIf()->workload());
  CHECK(workbench.whatIf()->workload()->name == "t5-base");
  CHECK(window.errorCount() == 0);
}
