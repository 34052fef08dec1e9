#include "profile/PluginCall.hpp"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <mutex>

namespace ts {
namespace {

thread_local const PluginCall* t_current_call = nullptr;

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
struct sigaction g_previous[sizeof(kFatalSignals) / sizeof(kFatalSignals[0])];

// Only async-signal-safe calls from here on: write(2), sigaction, raise.
void write_all(const char* text, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n <= 0) return;
    text += n;
    size -= static_cast<size_t>(n);
  }
}
void write_text(const char* text) { write_all(text, ::strlen(text)); }

// The names of the signals that PluginCall reports, and of those that stop a check's child.
struct SignalName {
  int sig;
  const char* name;
};
constexpr SignalName kSignalNames[] = {
    {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGILL, "SIGILL"},   {SIGFPE, "SIGFPE"},
    {SIGABRT, "SIGABRT"}, {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},
    {SIGHUP, "SIGHUP"},   {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"},
    {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"},
    {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};

const char* known_signal_name(int sig) {
  for (const SignalName& s : kSignalNames)
    if (s.sig == sig) return s.name;
  return nullptr;
}

extern "C" void on_fatal_signal_in_plugin(int sig) {
  if (const PluginCall* call = t_current_call) {
    t_current_call = nullptr;  // a second fault while reporting must not report again
    write_text("tilescope: plugin ");
    write_all(call->library.data(), call->library.size());
    write_text(" crashed (");
    const char* name = known_signal_name(sig);
    write_text(name != nullptr ? name : "a fatal signal");
    write_text(") in ");
    write_all(call->what.data(), call->what.size());
    write_text("\n");
  }
  // Whatever was there before takes the signal: restored, and raised again (still blocked in
  // here, so it arrives when this returns; a fault re-executed meets it as well).
  for (size_t i = 0; i < sizeof(kFatalSignals) / sizeof(kFatalSignals[0]); ++i)
    if (kFatalSignals[i] == sig) ::sigaction(sig, &g_previous[i], nullptr);
  ::raise(sig);
}

// Once, before the first call into a library: the handler stays, and without a current call on
// the faulting thread it only passes the signal on.
void install_fatal_signal_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < sizeof(kFatalSignals) / sizeof(kFatalSignals[0]); ++i) {
      struct sigaction action {};
      action.sa_handler = on_fatal_signal_in_plugin;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_ONSTACK;
      ::sigaction(kFatalSignals[i], &action, &g_previous[i]);
    }
  });
}

}  // namespace

bool plugin_trace_enabled() {
  const char* v = std::getenv("TILESCOPE_PLUGIN_TRACE");
  return v != nullptr && *v != '\0' && std::string_view(v) != "0";
}

PluginCall::PluginCall(std::string_view library_path, std::string_view what_called, bool announce)
    : library(library_path), what(what_called), outer_(t_current_call) {
  install_fatal_signal_handler();
  if (announce && plugin_trace_enabled())
    std::cerr << "tilescope: calling plugin " << library << " (" << what << ")" << std::endl;
  t_current_call = this;
}

PluginCall::~PluginCall() { t_current_call = outer_; }

std::string signal_name(int sig) {
  const char* name = known_signal_name(sig);
  return name != nullptr ? name : "signal " + std::to_string(sig);
}

}  // namespace ts
