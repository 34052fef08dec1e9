// tilescope-gui as a person starts it: --help, and the defaults loaded under the offscreen
// platform with nothing on stderr.
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "GuiTestSupport.hpp"

namespace {

struct Run {
  int code = -1;
  QString out, err;
};

Run run_gui(const QStringList& args, const QString& working_dir) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(working_dir);
  p.start(TILESCOPE_GUI_BINARY, args);
  REQUIRE(p.waitForFinished(120000));
  return {p.exitCode(), QString::fromLocal8Bit(p.readAllStandardOutput()),
          QString::fromLocal8Bit(p.readAllStandardError())};
}

}  // namespace

TEST_CASE("tilescope-gui --help", "[gui][smoke]") {
  const Run r = run_gui({"--help"}, TILESCOPE_ROOT);
  CHECK(r.code == 0);
  CHECK(r.out.contains("--quit-after-load"));
}

TEST_CASE("tilescope-gui loads the defaults and exits cleanly", "[gui][smoke]") {
  // An empty working folder: the samples come from the source tree, no database is opened.
  QTemporaryDir dir;
  const Run r = run_gui({"--quit-after-load"}, dir.path());
  CHECK(r.code == 0);
  CHECK(r.err == "");
}

TEST_CASE("tilescope-gui reports a bad input on stderr and exits 1", "[gui][smoke]") {
  QTemporaryDir dir;
  const Run r = run_gui({"--quit-after-load", dir.filePath("missing.yaml")}, dir.path());
  CHECK(r.code == 1);
  CHECK(r.err.contains("input error"));
}
