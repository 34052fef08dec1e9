// File > Open profile (issue 20): the menu lists the bundled profiles' variants, and choosing
// one opens that variant's graph, as `tilescope-gui profile:NAME/VARIANT` does. tilescope-gui
// starts beside plugins that crash, hang or exit in their entry point (issue 40): each is one
// line on stderr and a disabled "failed:" entry of the menu.
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

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

TEST_CASE("tilescope-gui starts beside plugins that crash, hang or exit and skips them",
          "[gui][profile][plugin-check]") {
  // The plugins tests/CMakeLists.txt builds: the good ones, and the faulty ones beside them.
  const QString plugins = TILESCOPE_BUILD_DIR "/tests/plugins";
  const QString faulty = QDir::cleanPath(TILESCOPE_BUILD_DIR "/tests/faulty-plugins");
  QTemporaryDir work, cache, data;
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  env.insert("TILESCOPE_PLUGIN_PATH", plugins + ":" + faulty);
  env.insert("TILESCOPE_PLUGIN_CHECK_TIMEOUT_S", "1");
  env.insert("XDG_CACHE_HOME", cache.path());
  env.insert("XDG_DATA_HOME", data.path());
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(work.path());
  p.start(TILESCOPE_GUI_BINARY, {"--quit-after-load"});
  REQUIRE(p.waitForFinished(120000));
  const QString err = QString::fromLocal8Bit(p.readAllStandardError());
  INFO(err.toStdString());
  CHECK(p.exitStatus() == QProcess::NormalExit);
  CHECK(p.exitCode() == 0);
  for (const QString& line :
       {faulty + "/libcrash-entry.so crashed (SIGSEGV) in its entry point; skipped",
        faulty + "/libexit-entry.so called exit() in its entry point; skipped",
        faulty + "/libhang-entry.so hung in its entry point (no answer within 1 s; stopped); "
                 "skipped"}) {
    INFO(line.toStdString());
    CHECK(err.count(line) == 1);
  }
}
