/* A faulty plugin: its entry point reads an address that is never mapped (SIGSEGV). The check in a
 * child process (core/profile/PluginCheck) must name it and skip it; tilescope itself never calls
 * it. Built by tests/CMakeLists.txt into the faulty-plugins folder. */
#include "profile/PluginAbi.h"

/* Not a null constant, which a compiler may turn into a trap (SIGILL) instead of a read. */
static volatile uintptr_t kNowhere = 8;

const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version) {
  const int never_read = *(volatile int*)kNowhere;
  *abi_version = (uint32_t)never_read;
  return 0;
}
