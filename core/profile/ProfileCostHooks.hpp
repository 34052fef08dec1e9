#pragma once
// Lets a graph read in this process name the cost hooks of installed code plugins: the first
// graph that names a hook not yet registered loads the installed profiles (and with them the
// plugins' hooks) before it is refused. A program calls this once at start; core/arch cannot look
// for plugins itself, since profiles sit above it.
namespace ts {

void provide_cost_hooks_from_profiles();

}  // namespace ts
