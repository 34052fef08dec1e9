/* A plugin built for a future ABI (99): tilescope must refuse it from the version alone, without
 * reading the structure it returns, which is deliberately not a TilescopeProfileV1. */
#include <stdint.h>

static const char kNotAProfile[] = "a layout this tilescope does not know";

const void* tilescope_profile(uint32_t* abi_version) {
  *abi_version = 99u;
  return kNotAProfile;
}
