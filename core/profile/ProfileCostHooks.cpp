#include "profile/ProfileCostHooks.hpp"

#include "arch/CostHooks.hpp"
#include "profile/ProfileRegistry.hpp"

namespace ts {

void provide_cost_hooks_from_profiles() {
  // Discovering the profiles loads every code plugin, which registers its hooks.
  set_cost_hook_provider([] { (void)installed_profiles(); });
}

}  // namespace ts
