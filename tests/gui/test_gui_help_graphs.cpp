// tilescope-gui --help says what every option that takes a graph accepts, a profile included, in
// the words of every tilescope program (kArchitectureForms): the files it opens and --compare.
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>

#include "GuiTestSupport.hpp"
#include "profile/ArchitectureReference.hpp"

TEST_CASE("tilescope-gui --help names the profile:NAME form of a graph", "[gui][smoke]") {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.start(TILESCOPE_GUI_BINARY, {"--help"});
  REQUIRE(p.waitForFinished(120000));
  CHECK(p.exitCode() == 0);
  // Qt wraps the help at 80 columns: compared with the line breaks and indents taken out.
  const QString help =
      QString::fromLocal8Bit(p.readAllStandardOutput()).replace(QRegularExpression("\\s+"), " ");
  const QString forms = QString::fromLatin1(ts::kArchitectureForms);
  INFO(help.toStdString());
  CHECK(help.count(forms) == 2);  // the files, and --compare GRAPH
  const qsizetype compare = help.indexOf("--compare");
  REQUIRE(compare >= 0);
  CHECK(help.indexOf(forms, compare) > compare);
}
