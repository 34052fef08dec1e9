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

// `platform`: the Qt platform plugin; "xcb" with DISPLAY removed is a terminal without a display,
// where a QApplication aborts.
Run run_gui(const QStringList& args, const QString& working_dir,
            const QString& platform = "offscreen", const QString& data = QString()) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", platform);
  if (!data.isEmpty()) env.insert("TILESCOPE_DATA", data);
  if (platform == "xcb") {
    env.remove("DISPLAY");
    env.remove("WAYLAND_DISPLAY");
  }
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

TEST_CASE("tilescope-gui refuses a wrong TILESCOPE_DATA in one line, exit 2", "[gui][smoke]") {
  QTemporaryDir dir;
  const QString wrong = dir.path() + "/nowhere";
  const Run r = run_gui({"--quit-after-load"}, dir.path(), "offscreen", wrong);
  CHECK(r.code == 2);
  CHECK(r.err.contains("TILESCOPE_DATA: '" + wrong + "' holds no samples/"));
}

TEST_CASE("tilescope-gui --help and --version without a display", "[gui][smoke]") {
  const Run help = run_gui({"--help"}, TILESCOPE_ROOT, "xcb");
  CHECK(help.code == 0);
  CHECK(help.out.contains("--quit-after-load"));
  const Run version = run_gui({"--version"}, TILESCOPE_ROOT, "xcb");
  CHECK(version.code == 0);
  CHECK(version.out.startsWith("tilescope-gui "));
}

TEST_CASE("tilescope-gui --quit-after-load prints each input error on stderr and exits 2",
          "[gui][smoke]") {
  // The lines of stderr that name `file`: the platform may add its own notes.
  const auto lines_naming = [](const QString& err, const QString& file) {
    QStringList out;
    for (const QString& line : err.split('\n', Qt::SkipEmptyParts))
      if (line.contains(file)) out << line;
    return out;
  };
  QTemporaryDir dir;
  const QString missing = dir.filePath("missing.yaml");
  const Run absent = run_gui({"--quit-after-load", missing}, dir.path());
  CHECK(absent.code == 2);
  CHECK(lines_naming(absent.err, missing) == QStringList{missing + ": no such file"});
  // The same one-line error as `tilescope validate`: line 15 has an edge to `L9`, which the
  // graph does not have (tests/cli/test_cli_errors.cpp).
  const QString graph = QString(TILESCOPE_ROOT) + "/tests/fixtures/arch/unknown-node-edge.yaml";
  const Run broken = run_gui({"--quit-after-load", graph}, dir.path());
  CHECK(broken.code == 2);
  const QStringList lines = lines_naming(broken.err, graph);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].startsWith(graph + ":15:"));
  CHECK(lines[0].contains("L9"));
}

TEST_CASE(
    "tilescope-gui --quit-after-load refuses a broken workspace and a YAML syntax error "
    "at their line and column",
    "[gui][smoke]") {
  QTemporaryDir dir;
  // cycle-a.yaml names cycle-b.yaml on line 3 (`workload: ` is 10 characters: column 11), which
  // names cycle-a.yaml back: refused, where the GUI used to recurse until its stack overflowed.
  const QString cycle = QString(TILESCOPE_ROOT) + "/tests/fixtures/workspaces/cycle-a.yaml";
  const Run refused = run_gui({"--quit-after-load", cycle}, dir.path());
  CHECK(refused.code == 2);
  CHECK(refused.err.split('\n', Qt::SkipEmptyParts)
            .filter(cycle)
            .contains(cycle + ":3:11: workspace '" + cycle +
                      "' includes itself through cycle-b.yaml"));
  // A list where the architecture's path belongs (line 3, column 15): the GUI aborted on it.
  const QString list =
      QString(TILESCOPE_ROOT) + "/tests/fixtures/workspaces/architecture-list.yaml";
  const Run wrong_type = run_gui({"--quit-after-load", list}, dir.path());
  CHECK(wrong_type.code == 2);
  CHECK(wrong_type.err.split('\n', Qt::SkipEmptyParts)
            .contains(list + ":3:15: expected a path for `architecture`, got a list"));
  // malformed.yaml leaves the flow map of line 6 open; the parser stops on line 7 (as
  // tests/unit/test_yaml_source.cpp finds). The GUI said `malformed.yaml:1:1: not a file
  // tilescope-gui opens`, since it could not tell the kind.
  const QString malformed = QString(TILESCOPE_ROOT) + "/tests/fixtures/arch/malformed.yaml";
  const Run syntax = run_gui({"--quit-after-load", malformed}, dir.path());
  CHECK(syntax.code == 2);
  const QStringList lines = syntax.err.split('\n', Qt::SkipEmptyParts).filter(malformed);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].startsWith(malformed + ":7:"));
  CHECK(lines[0].contains("invalid YAML"));
}
