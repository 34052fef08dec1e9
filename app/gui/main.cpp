// tilescope-gui [workspace.yaml | files...]: the desktop workbench. With --quit-after-load or
// --screenshots it loads, waits for the background work, and exits (smoke tests, README
// pictures); the exit status is 1 when an input could not be used.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTabWidget>
#include <QTimer>
#include <iostream>

#include "DefaultInputs.hpp"
#include "MainWindow.hpp"
#include "Workbench.hpp"

namespace {

QtMessageHandler default_handler = nullptr;

// The offscreen platform (tests, --screenshots without a display) says on every top-level window
// that it cannot pass size hints to a window manager it does not have. That is no fault of the
// inputs, and stderr is what the smoke tests read for faults, so drop that one line.
void without_offscreen_noise(QtMsgType type, const QMessageLogContext& context,
                             const QString& text) {
  if (text.startsWith("This plugin does not support propagateSizeHints")) return;
  default_handler(type, context, text);
}

}  // namespace

int main(int argc, char** argv) {
  default_handler = qInstallMessageHandler(without_offscreen_noise);
  QApplication app(argc, argv);
  QApplication::setApplicationName("tilescope-gui");
  QApplication::setOrganizationName("tilescope");
  QApplication::setApplicationVersion(TILESCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription(
      "The tilescope workbench: architecture graphs, predictions, mappings and measurements.\n"
      "Without files it opens samples/arch/ascend910b3.yaml, samples/workloads/bert-base.yaml "
      "and the newest *.sqlite in the working folder (or its out/).");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      "files",
      "a workspace.yaml, or architecture / workload YAML files, results databases "
      "(.sqlite) and CSVs of measured GEMMs (M,N,K,measured_us)",
      "[workspace.yaml | files...]");
  const QCommandLineOption quit_after_load(
      "quit-after-load", "load the inputs, wait for the predictions, then exit (1 on errors)");
  const QCommandLineOption screenshots(
      "screenshots", "once loaded, save a PNG of every page into DIR, then exit", "DIR");
  parser.addOption(quit_after_load);
  parser.addOption(screenshots);
  parser.process(app);

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  QStringList files = parser.positionalArguments();
  if (files.isEmpty()) files = ts::gui::default_inputs(QDir::currentPath());
  for (const QString& file : files) workbench.openFile(file);
  window.show();

  if (parser.isSet(quit_after_load) || parser.isSet(screenshots)) {
    QTimer::singleShot(0, &app, [&] {
      workbench.waitForIdle();
      if (parser.isSet(screenshots)) {
        const QDir dir(parser.value(screenshots));
        QDir().mkpath(dir.path());
        for (int i = 0; i < window.pages()->count(); ++i) {
          window.pages()->setCurrentIndex(i);
          QApplication::processEvents();
          const QString name = window.pages()->tabText(i).toLower();
          window.grab().save(dir.filePath("gui-" + name + ".png"));
        }
      }
      if (window.errorCount() > 0) {
        std::cerr << window.errorCount() << " input error(s); see the log panel\n";
        app.exit(1);
      } else {
        app.exit(0);
      }
    });
  }
  return app.exec();
}
