// File > Open profile (issue 20): the menu lists the bundled profiles' variants, and choosing
// one opens that variant's graph, as `tilescope-gui profile:NAME/VARIANT` does.
#include <QFileInfo>
#include <QMenu>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"

using ts::guitest::sample;

namespace {

QMenu* submenu(const QList<QAction*>& actions, const QString& title) {
  for (QAction* a : actions)
    if (a->menu() != nullptr && a->text() == title) return a->menu();
  return nullptr;
}

}  // namespace

TEST_CASE("File > Open profile opens a variant's graph", "[gui][profile]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  QMenu* profiles = nullptr;
  for (QMenu* m : window.findChildren<QMenu*>())
    if (m->title() == "Open &profile") profiles = m;
  REQUIRE(profiles);
  REQUIRE(submenu(profiles->actions(), "nvidia"));
  QMenu* ascend = submenu(profiles->actions(), "ascend");
  REQUIRE(ascend);
  QStringList variants;
  for (QAction* a : ascend->actions()) variants << a->text();
  CHECK(variants == QStringList{"910b3", "910b3-fitted (fitted)"});
  ascend->actions().at(1)->trigger();
  REQUIRE(workbench.whatIf()->graph());
  // The fitted variant is samples/arch/ascend910b3-fitted.yaml (plugins/ascend/profile.yaml).
  CHECK(QFileInfo(workbench.whatIf()->architecturePath()).canonicalFilePath() ==
        QFileInfo(sample("arch/ascend910b3-fitted.yaml")).canonicalFilePath());
  // A reference typed by hand goes through the same resolution.
  REQUIRE(workbench.openFile("profile:nvidia/h200"));
  CHECK(workbench.whatIf()->graph()->name == "nvidia-h200");
  CHECK_FALSE(workbench.openFile("profile:nvidia/h300"));
}
