#pragma once
// Code plugins' cost hooks (arch/ComputeCostHook.h) as the graphs see them.
//
// provide_cost_hooks_from_profiles lets a graph read in this process name the cost hooks of
// installed code plugins: the first graph that names a hook not yet registered discovers the
// installed profiles (which registers the hooks every checked plugin declares) before it is
// refused. A program calls it once at start; core/arch cannot look for plugins itself, since
// profiles sit above it.
//
// Every hook a plugin provides is registered as a checking stand-in: its library is opened in
// this process when the hook is first called (not when the graph is read), and each answer is
// checked: infinite, NaN or negative seconds is an InputError naming the library and the hook
// (never a memory overflow, never silently dropped by the larger-of rule).
#include <string>
#include <vector>

#include "arch/ComputeCostHook.h"

namespace ts {

void provide_cost_hooks_from_profiles();

// Registers the hooks that a checked plugin declares, to be opened on first call. Throws
// ProfileLoadError (nothing registered) when a name is not usable or another provider has it.
void declare_plugin_cost_hooks(const std::string& library, const std::vector<std::string>& names);

struct PluginHookFunction {
  std::string name;
  TilescopeComputeSeconds seconds = nullptr;
  const void* user = nullptr;
};
// Registers hooks with their functions, from a library open in this process. Throws
// ProfileLoadError (nothing registered) as declare_plugin_cost_hooks does.
void provide_plugin_cost_hooks(const std::string& library,
                               const std::vector<PluginHookFunction>& hooks);

// `seconds` when it is a finite time of at least 0; otherwise an InputError (located at the
// library) naming the library, the hook and the answer.
double checked_cost_hook_answer(double seconds, const std::string& library,
                                const std::string& hook);

}  // namespace ts
