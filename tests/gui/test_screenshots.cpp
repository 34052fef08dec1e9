// scripts/screenshots, which makes the README's pictures, runs on the build and writes every
// picture the README shows, each a PNG that decodes to a picture with something drawn on it;
// the Compare page's with a second graph added.
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>

#include "GuiTestSupport.hpp"

TEST_CASE("scripts/screenshots writes the README's pictures as PNGs that decode",
          "[gui][screenshots][slow]") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("TILESCOPE_BUILD_DIR", TILESCOPE_BUILD_DIR);
  env.insert("SCREENSHOTS_WORK", dir.filePath("work"));
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(TILESCOPE_ROOT);
  p.start(TILESCOPE_ROOT "/scripts/screenshots", {dir.filePath("pictures")});
  REQUIRE(p.waitForFinished(600000));
  INFO(QString::fromLocal8Bit(p.readAllStandardError()).toStdString());
  REQUIRE(p.exitCode() == 0);

  // Every picture the README names is written, and decodes to more than a blank.
  QFile readme(TILESCOPE_ROOT "/README.md");
  REQUIRE(readme.open(QIODevice::ReadOnly));
  const QString text = QString::fromUtf8(readme.readAll());
  const QRegularExpression picture(R"(\(docs/screenshots/([a-z0-9-]+\.png)\))");
  int named = 0;
  for (auto it = picture.globalMatch(text); it.hasNext();) {
    const QString name = it.next().captured(1);
    INFO(name.toStdString());
    ++named;
    const QString path = QDir(dir.filePath("pictures")).filePath(name);
    REQUIRE(QFileInfo(path).size() > 0);
    const QImage image(path);
    REQUIRE_FALSE(image.isNull());
    CHECK(image.width() >= 300);
    CHECK(image.height() >= 200);
    // Not one colour: count pixels that differ from the top-left one.
    const QRgb background = image.pixel(0, 0);
    int different = 0;
    for (int y = 0; y < image.height(); y += 4)
      for (int x = 0; x < image.width(); x += 4)
        if (image.pixel(x, y) != background) ++different;
    CHECK(different > 100);
  }
  CHECK(named >= 7);
  // The Compare page (H100 against H200 on BERT-large) is among them, drawn by a second run of
  // the GUI with --compare: its picture is not the first run's empty state.
  CHECK(text.contains("(docs/screenshots/gui-compare.png)"));
  const QImage compare(QDir(dir.filePath("pictures")).filePath("gui-compare.png"));
  const QImage empty(QDir(dir.filePath("work")).filePath("gui/gui-compare.png"));
  REQUIRE_FALSE(compare.isNull());
  REQUIRE_FALSE(empty.isNull());
  CHECK(compare != empty);
  // So is the Sweep page, on a sweep the script runs: not the first run's "holds no sweep".
  CHECK(text.contains("(docs/screenshots/gui-sweep.png)"));
  const QImage sweep(QDir(dir.filePath("pictures")).filePath("gui-sweep.png"));
  const QImage no_sweep(QDir(dir.filePath("work")).filePath("gui/gui-sweep.png"));
  REQUIRE_FALSE(sweep.isNull());
  REQUIRE_FALSE(no_sweep.isNull());
  CHECK(sweep != no_sweep);
  // And the Trace page, on the generated 4-rank step: not the first run's "No trace open".
  CHECK(text.contains("(docs/screenshots/gui-trace.png)"));
  const QImage trace(QDir(dir.filePath("pictures")).filePath("gui-trace.png"));
  const QImage no_trace(QDir(dir.filePath("work")).filePath("gui/gui-trace.png"));
  REQUIRE_FALSE(trace.isNull());
  REQUIRE_FALSE(no_trace.isNull());
  CHECK(trace != no_trace);
}
