/* A faulty plugin: its entry point ends the process with exit(0), a success status, before it
 * answers. In tilescope's own process that would end a command with status 0 and no output. */
#include <stdlib.h>

#include "profile/PluginAbi.h"

const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  exit(0);
}
