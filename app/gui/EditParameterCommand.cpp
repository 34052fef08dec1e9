#include "EditParameterCommand.hpp"

#include "Workbench.hpp"
#include "arch/ArchitectureParameterPath.hpp"

namespace ts::gui {

EditParameterCommand::EditParameterCommand(Workbench* workbench, QString path, double before,
                                           double after)
    : workbench_(workbench), path_(std::move(path)), before_(before), after_(after) {
  const std::string p = path_.toStdString();
  setText(QString("%1: %2 -> %3")
              .arg(path_, QString::fromStdString(format_parameter(p, before_)),
                   QString::fromStdString(format_parameter(p, after_))));
}

void EditParameterCommand::undo() { workbench_->applyParameter(path_, before_); }

void EditParameterCommand::redo() { workbench_->applyParameter(path_, after_); }

}  // namespace ts::gui
