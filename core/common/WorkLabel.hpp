#pragma once
// What a command is building, named for the one line it prints when memory runs out: a
// `std::bad_alloc` carries no context, and "out of memory" alone does not say that the sweep's
// grid, not the graph, was too large. A WorkLabel is put on the stack around work that can grow
// (a parse, a grid, a timeline); when an exception unwinds through it, the innermost label is
// remembered, and the command's exit path (app/cli/CommandExit) prints it.
#include <string>

namespace ts {

class WorkLabel {
 public:
  explicit WorkLabel(std::string what);
  ~WorkLabel();
  WorkLabel(const WorkLabel&) = delete;
  WorkLabel& operator=(const WorkLabel&) = delete;

 private:
  std::string what_;
  int exceptions_at_start_;
};

// The innermost label an exception unwound through on this thread since the last call, or ""
// when none did; clears it.
std::string take_failed_work();

}  // namespace ts
