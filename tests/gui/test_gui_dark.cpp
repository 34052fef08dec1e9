// Dark mode: the window follows the palette the platform delivers. A dark desktop theme hands Qt
// an application palette before the first window exists; here that palette is set the same way
// (QApplication::setPalette before any widget of the test is made, on the offscreen platform),
// and every plot builder must take its colours from it: the plot's background from Base, axes,
// ticks, labels, title and legend text from Text (the pair Qt's item views use for content; the
// window around them is Window / WindowText). Screenshots go to the build folder's screenshots
// (the committed docs/screenshots/*-dark.png are copies).
#include <QFile>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QLibraryInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>

#include "ArchitecturePage.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "ResultsFixture.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/ArchitectureScene.hpp"
#include "views/ArchitectureView.hpp"
#include "views/CorrelationView.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelineView.hpp"

using ts::guitest::sample;
using ts::guitest::save_screenshot;

namespace {

// A dark palette as desktop themes (Breeze Dark, Adwaita-dark) deliver it: dark window and base,
// light text.
QPalette dark_palette() {
  QPalette p;
  const QColor window(49, 54, 59), base(35, 38, 41), text(239, 240, 241);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(42, 46, 50));
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::white);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::PlaceholderText, QColor(160, 160, 160));
  p.setColor(QPalette::Highlight, QColor(61, 174, 233));
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Link, QColor(29, 153, 243));
  for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, QColor(110, 113, 116));
  return p;
}

// Puts the application palette back whatever the test's outcome: the other tests run light.
struct PaletteScope {
  QPalette before = QApplication::palette();
  explicit PaletteScope(const QPalette& p) { QApplication::setPalette(p); }
  ~PaletteScope() { QApplication::setPalette(before); }
};

// The colours a plot builder gave a QCustomPlot, against the palette's.
void check_plot_follows(QCustomPlot& plot, const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base), text = palette.color(QPalette::Text);
  for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
    CHECK(axis->basePen().color() == text);
    CHECK(axis->tickPen().color() == text);
    CHECK(axis->tickLabelColor() == text);
    CHECK(axis->labelColor() == text);
  }
  CHECK(plot.legend->textColor() == text);
  CHECK(plot.legend->brush().color() == base);
  if (auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
    CHECK(title->textColor() == text);
  // Drawn: a corner of the widget (outside the axes) shows the background.
  const QImage image = plot.toPixmap(plot.width(), plot.height()).toImage();
  CHECK(image.pixelColor(2, 2) == base);
  CHECK(image.pixelColor(plot.width() - 3, plot.height() - 3) == base);
}

}  // namespace

TEST_CASE("a dark palette from the platform reaches the window and every plot", "[gui][dark]") {
  const QPalette dark = dark_palette();
  const PaletteScope scope(dark);
  QTemporaryDir dir;
  const QString db = dir.filePath("dark.sqlite");
  {
    const ts::guitest::BertOnAscend in;
    ts::ResultStore store(db.toStdString());
    ts::guitest::add_run(store, in, in.graph.name, in.workload.operators.size());
  }

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  REQUIRE(workbench.openFile(db));
  REQUIRE(workbench.openFile(TILESCOPE_ROOT "/tests/gui/fixtures/gpt-22b-selene.sim.json"));
  workbench.waitForIdle();
  CHECK(window.errorCount() == 0);
  CHECK(window.palette().color(QPalette::Window) == dark.color(QPalette::Window));
  CHECK(window.palette().color(QPalette::WindowText) == dark.color(QPalette::WindowText));

  auto* correlation = window.correlationView();
  window.pages()->setCurrentWidget(correlation);
  QApplication::processEvents();
  REQUIRE(correlation->contents().count == 13);
  check_plot_follows(*correlation->plot(), dark);
  // The window around the plot is dark too: beside the tabs, and the status bar.
  const QImage grabbed = window.grab().toImage();
  CHECK(grabbed.pixelColor(grabbed.width() - 50, 30).lightness() < 90);
  CHECK(grabbed.pixelColor(grabbed.width() / 2, grabbed.height() - 4).lightness() < 90);
  save_screenshot(window, "gui-correlation-dark");

  auto* timeline = window.timelineView();
  window.pages()->setCurrentWidget(timeline);
  QApplication::processEvents();
  check_plot_follows(*timeline->plot(), dark);
  save_screenshot(window, "gui-timeline-dark");

  // The architecture picture: drawn on Base, its text in Text.
  window.pages()->setCurrentWidget(window.architecturePage());
  QApplication::processEvents();
  const QImage picture = window.architecturePage()->view()->architectureScene()->toImage(1.0);
  CHECK(picture.pixelColor(1, 1) == dark.color(QPalette::Base));
  save_screenshot(window, "gui-architecture-dark");
}

TEST_CASE("a palette switched while the window is open redraws the plots", "[gui][dark]") {
  // A desktop switching to dark mode while the program runs: every widget gets PaletteChange.
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1000, 700);
  window.show();
  REQUIRE(workbench.openFile(TILESCOPE_ROOT "/tests/gui/fixtures/gpt-22b-selene.sim.json"));
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  ts::views::ArchitectureScene* scene = window.architecturePage()->view()->architectureScene();
  REQUIRE(scene->nodeItem(0));
  auto label_colour = [&] {
    for (QGraphicsItem* child : scene->nodeItem(0)->childItems())
      if (auto* text = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(child))
        return text->brush().color();
    return QColor();
  };
  const QPalette light = QApplication::palette();
  check_plot_follows(*window.timelineView()->plot(), light);
  CHECK(label_colour() == light.color(QPalette::Text));
  const QPalette dark = dark_palette();
  {
    const PaletteScope scope(dark);
    QApplication::processEvents();
    check_plot_follows(*window.timelineView()->plot(), dark);
    check_plot_follows(*window.correlationView()->plot(), dark);
    CHECK(label_colour() == dark.color(QPalette::Text));
    CHECK(scene->toImage(1.0).pixelColor(1, 1) == dark.color(QPalette::Base));
  }
  QApplication::processEvents();
  check_plot_follows(*window.timelineView()->plot(), light);
  CHECK(label_colour() == light.color(QPalette::Text));
}

namespace {

// tilescope-gui --screenshots under a virtual X display with the GTK platform theme and a GTK
// theme: the palette comes from the desktop theme as it does on a user's desktop. The timeline
// page's picture (its plot fills the middle), or a null image when it could not run.
QImage timeline_under_gtk_theme(const QString& gtk_theme, const QString& out) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove("QT_QPA_PLATFORM");  // xcb, on the virtual display
  env.insert("QT_QPA_PLATFORMTHEME", "gtk3");
  env.insert("GTK_THEME", gtk_theme);
  p.setProcessEnvironment(env);
  QTemporaryDir empty;  // no results database: the defaults only
  p.setWorkingDirectory(empty.path());
  p.start(QStandardPaths::findExecutable("xvfb-run"),
          {"-a", TILESCOPE_GUI_BINARY, "--screenshots", out});
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    WARN("xvfb-run tilescope-gui failed: " << p.readAllStandardError().toStdString());
    return {};
  }
  return QImage(out + "/gui-timeline.png");
}

}  // namespace

TEST_CASE("under a dark GTK desktop theme tilescope-gui draws dark", "[gui][dark]") {
  const QString plugin =
      QLibraryInfo::path(QLibraryInfo::PluginsPath) + "/platformthemes/libqgtk3.so";
  if (QStandardPaths::findExecutable("xvfb-run").isEmpty() || !QFile::exists(plugin)) {
    WARN("not checked: needs xvfb-run and the Qt GTK platform theme (qt6-gtk-platformtheme)");
    return;
  }
  const QString shots = TILESCOPE_SCREENSHOTS "/gtk";
  const QImage dark = timeline_under_gtk_theme("Adwaita:dark", shots + "-dark");
  const QImage light = timeline_under_gtk_theme("Adwaita", shots + "-light");
  REQUIRE_FALSE(dark.isNull());
  REQUIRE_FALSE(light.isNull());
  // The middle of the page is the plot's background (Base): dark under the dark theme and light
  // under the light one, so the colour is the theme's, not one the program picked.
  const QPoint middle(dark.width() / 2, dark.height() / 2);
  INFO("dark theme: " << dark.pixelColor(middle).name().toStdString()
                      << ", light theme: " << light.pixelColor(middle).name().toStdString());
  CHECK(dark.pixelColor(middle).lightness() < 80);
  CHECK(light.pixelColor(middle).lightness() > 200);
  // The window around it too (the status bar).
  CHECK(dark.pixelColor(dark.width() / 2, dark.height() - 4).lightness() < 100);
}
