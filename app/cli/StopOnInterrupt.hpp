#pragma once
// Ctrl-C (SIGINT) or SIGTERM during long work (a sweep): the handler only raises a flag that the
// work polls, so that what is done so far is kept (stored, ranked, printed) instead of lost. The
// previous handlers come back when the guard goes.
#include <atomic>
#include <csignal>

namespace ts::cli {

class StopOnInterrupt {
 public:
  StopOnInterrupt();  // lowers the flag and installs the handlers
  ~StopOnInterrupt();
  StopOnInterrupt(const StopOnInterrupt&) = delete;
  StopOnInterrupt& operator=(const StopOnInterrupt&) = delete;

  // Raised by the signal; what the work polls (and hands to cancellable core functions).
  static std::atomic<bool>& flag();
  static bool requested() { return flag().load(); }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace ts::cli
