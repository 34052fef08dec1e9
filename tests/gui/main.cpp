// The GUI tests' main: a QApplication on the offscreen platform (unless one is set), so that
// Catch2's discovery at build time and ctest both run without a display.
#define CATCH_CONFIG_RUNNER
#include <QApplication>
#include <QDir>
#include <QSettings>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // Qt warns on stderr without a private runtime folder; give it one for the run.
  QTemporaryDir runtime;
  if (qEnvironmentVariableIsEmpty("XDG_RUNTIME_DIR")) {
    QFile::setPermissions(runtime.path(),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    qputenv("XDG_RUNTIME_DIR", runtime.path().toLocal8Bit());
  }
  QApplication app(argc, argv);
  // Recent files go to QSettings: keep the tests' out of the user's configuration.
  QTemporaryDir settings;
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
  return Catch::Session().run(argc, argv);
}
