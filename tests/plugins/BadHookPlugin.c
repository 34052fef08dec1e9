/* A plugin that loads, with cost hooks that answer what no time is: infinity, NaN and a negative
 * time (arch/ComputeCostHook.h asks for a finite time of at least 0). tilescope must refuse each
 * answer with an error naming the library and the hook. Its variant is toy-code-chip.yaml, which
 * names no hook (a graph naming these is written by the tests). */
#include <math.h>

#include "profile/PluginAbi.h"

static double infinite_seconds(const TilescopeComputeTile* tile, const void* user) {
  (void)tile;
  (void)user;
  return INFINITY;
}

static double nan_seconds(const TilescopeComputeTile* tile, const void* user) {
  (void)tile;
  (void)user;
  return NAN;
}

static double negative_seconds(const TilescopeComputeTile* tile, const void* user) {
  (void)user;
  return -tile->ops / tile->ops_per_cycle / tile->clock_hz;
}

static const TilescopeVariantV1 kVariants[] = {
    {"v1", "../plugins/toy-code-chip.yaml", 0, "the tiny two-level test graph"},
};

static const TilescopeCostHookV2 kHooks[] = {
    {"bad-hooks.inf", infinite_seconds, 0},
    {"bad-hooks.nan", nan_seconds, 0},
    {"bad-hooks.negative", negative_seconds, 0},
};

static const TilescopeProfileV2 kProfile = {
    "bad-hooks", "0.1.0", "a test plugin whose hooks answer no time", kVariants, 1u, "v1",
    kHooks,      3u,
};

const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  return &kProfile;
}
