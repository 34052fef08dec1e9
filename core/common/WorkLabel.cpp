#include "common/WorkLabel.hpp"

#include <exception>
#include <utility>

namespace ts {
namespace {

thread_local std::string failed_work;  // innermost first: set once until taken

}  // namespace

WorkLabel::WorkLabel(std::string what)
    : what_(std::move(what)), exceptions_at_start_(std::uncaught_exceptions()) {
  failed_work.clear();  // new work: an earlier failure was handled, or it would not start
}

WorkLabel::~WorkLabel() {
  if (std::uncaught_exceptions() > exceptions_at_start_ && failed_work.empty()) {
    try {
      failed_work = what_;
    } catch (...) {  // no memory even for the label: leave it unnamed
    }
  }
}

std::string take_failed_work() { return std::exchange(failed_work, std::string()); }

}  // namespace ts
