#include "StopOnInterrupt.hpp"

namespace ts::cli {
namespace {
std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }
}  // namespace

std::atomic<bool>& StopOnInterrupt::flag() { return g_stop; }

StopOnInterrupt::StopOnInterrupt() {
  g_stop.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

StopOnInterrupt::~StopOnInterrupt() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

}  // namespace ts::cli
