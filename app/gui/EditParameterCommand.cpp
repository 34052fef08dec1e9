#include "EditParameterCommand.hpp"

#include "WhatIfSession.hpp"
#include "arch/ArchitectureParameterPath.hpp"

namespace ts::gui {

EditParameterCommand::EditParameterCommand(WhatIfSession* session, QString path, double before,
                                           double after)
    : session_(session), path_(std::move(path)), before_(before), after_(after) {
  const std::string p = path_.toStdString();
  setText(QString("%1: %2 -> %3")
              .arg(path_, QString::fromStdString(format_parameter(p, before_)),
                   QString::fromStdString(format_parameter(p, after_))));
}

void EditParameterCommand::undo() { session_->applyParameter(path_, before_); }

void EditParameterCommand::redo() { session_->applyParameter(path_, after_); }

}  // namespace ts::gui
