#include "OutputGuard.hpp"

#include "common/InputError.hpp"

namespace ts::gui {

void refuse_output_over_open_files(const QString& path, const QString& what,
                                   const std::vector<NamedPath>& open) {
  refuse_output_over_inputs({what.toStdString(), path.toStdString()}, open, kGuiOutputRule);
}

QString output_over_open_files(const QString& path, const QString& what,
                               const std::vector<NamedPath>& open) {
  try {
    refuse_output_over_open_files(path, what, open);
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace ts::gui
