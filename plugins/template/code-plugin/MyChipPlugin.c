/* A code plugin: the same profile as ../data-profile, returned by the entry point of
 * tilescope's plugin ABI (profile/PluginAbi.h). Write one when the profile must be computed
 * (variants chosen by probing a driver, graphs generated beside the library); a data profile is
 * simpler otherwise. The entry point only fills in the version and returns static data. */
#include "profile/PluginAbi.h"

static const TilescopeVariantV1 kVariants[] = {
    /* name, graph file relative to this library's folder, fitted, provenance */
    {"base", "mychip.yaml", 0, "datasheet figures (say which document)"},
};

static const TilescopeProfileV1 kProfile = {
    "mychip-code",                /* profile:mychip-code */
    "0.1.0",                      /* this profile's version */
    "MyChip as a code plugin",    /* description */
    kVariants,
    sizeof kVariants / sizeof kVariants[0],
    "base", /* default variant */
};

__attribute__((visibility("default"))) const TilescopeProfileV1* tilescope_profile(
    uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  return &kProfile;
}
