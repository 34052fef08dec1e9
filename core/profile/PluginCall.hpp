#pragma once
// A call into a code plugin's library in this process (opening it, its entry point, a cost
// hook), marked so that a crash inside it is attributable: while a PluginCall lives, a fatal
// signal on its thread (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) first writes
//   tilescope: plugin <library> crashed (SIGSEGV) in <what>
// on stderr, then goes on as it would have (the previous handler, or the default: the process
// dies of the signal). With TILESCOPE_PLUGIN_TRACE set (to anything but "" or "0") every call
// but a cost hook's is also announced before it starts:
//   tilescope: calling plugin <library> (<what>)
// A plugin is checked in a child process before this process calls into it (PluginCheck.hpp),
// so these lines are for what the check cannot see (a fault that depends on the input).
#include <string>
#include <string_view>

namespace ts {

class PluginCall {
 public:
  // `library` and `what` must outlive the call (the handler reads them, and cannot copy): a
  // literal, or a string that stays put. `announce`: false for the calls of a cost hook, which
  // run in the evaluation loop.
  PluginCall(std::string_view library, std::string_view what, bool announce = true);
  ~PluginCall();
  PluginCall(const PluginCall&) = delete;
  PluginCall& operator=(const PluginCall&) = delete;

  const std::string_view library;
  const std::string_view what;

 private:
  const PluginCall* outer_;
};

// "SIGSEGV", "SIGKILL", ...; "signal N" for one without a name here.
std::string signal_name(int signal);

// Whether TILESCOPE_PLUGIN_TRACE asks for the lines above (and PluginCheck's "checking" lines).
bool plugin_trace_enabled();

}  // namespace ts
