/* A code plugin as a vendor would write one (core/profile/PluginAbi.h): one variant whose graph
 * lies beside the library. Built by tests/CMakeLists.txt for the profile tests. It keeps the ABI 1
 * layout on purpose: a plugin built before cost hooks (ABI 2) must still load. */
#include "profile/PluginAbi.h"

static const TilescopeVariantV1 kVariants[] = {
    {"v1", "toy-code-chip.yaml", 0, "the tiny two-level test graph"},
    {"v1-fitted", "toy-code-chip.yaml", 1, "the same graph, marked fitted for the listing"},
};

static const TilescopeProfileV1 kProfile = {
    "toy-code", "0.1.0", "a test code plugin", kVariants, 2u, "v1",
};

const TilescopeProfileV1* tilescope_profile(uint32_t* abi_version) {
  *abi_version = 1u; /* the layout of TilescopeProfileV1 */
  return &kProfile;
}
