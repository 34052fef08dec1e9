#pragma once
// The cost hooks this process knows, by name: what a graph's `cost_hook: NAME` resolves to when
// the graph is read. Code plugins (core/profile) add theirs when they load; a test may add its
// own. core/arch cannot look for plugins itself (profiles sit above it), so a graph that names an
// unknown hook asks the provider, which the program sets once at start
// (profile/ProfileCostHooks: load the installed profiles), before it is refused.
#include <optional>
#include <string>
#include <vector>

#include "arch/ComputeCostHook.h"

namespace ts {

struct ComputeCostHook {
  std::string name;
  TilescopeComputeSeconds seconds = nullptr;
  const void* user = nullptr;
  std::string provider;  // the plugin's path, for messages and `profiles show`
};

// Adds a hook. Throws std::invalid_argument when the name is taken by another provider (the same
// provider registering it again is a no-op) or when `seconds` is null.
void register_cost_hook(const ComputeCostHook& hook);

// The hook of that name; when none is known yet, runs the provider once and looks again.
std::optional<ComputeCostHook> find_cost_hook(const std::string& name);

// The hook of that name among those registered, without running the provider.
std::optional<ComputeCostHook> find_registered_cost_hook(const std::string& name);

// Every known hook, sorted by name (for messages).
std::vector<ComputeCostHook> known_cost_hooks();

// What find_cost_hook runs once before it gives up on a name (nullptr: nothing).
void set_cost_hook_provider(void (*provider)());

}  // namespace ts
