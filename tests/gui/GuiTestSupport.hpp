#pragma once
// Shared by the GUI tests: printing QStrings in Catch2 messages, sample paths, screenshots.
#include <QDir>
#include <QString>
#include <QWidget>
#include <catch2/catch.hpp>

namespace Catch {
template <>
struct StringMaker<QString> {
  static std::string convert(const QString& s) { return '"' + s.toStdString() + '"'; }
};
}  // namespace Catch

namespace ts::guitest {

inline QString sample(const QString& relative) {
  return QString(TILESCOPE_ROOT "/samples/") + relative;
}

// Saves a widget's picture under the build folder; returns the path.
inline QString save_screenshot(QWidget& widget, const QString& name) {
  QDir().mkpath(TILESCOPE_SCREENSHOTS);
  const QString path = QString(TILESCOPE_SCREENSHOTS "/") + name + ".png";
  REQUIRE(widget.grab().save(path));
  return path;
}

}  // namespace ts::guitest
