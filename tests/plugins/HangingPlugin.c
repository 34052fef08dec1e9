/* A faulty plugin: its entry point never returns. The check in a child process stops it at its
 * timeout (TILESCOPE_PLUGIN_CHECK_TIMEOUT_S; the tests give it a short one). */
#include <unistd.h>

#include "profile/PluginAbi.h"

const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  for (;;) sleep(1000);
  return 0;
}
