/* A code plugin: the same profile as ../data-profile, returned by the entry point of
 * tilescope's plugin ABI (profile/PluginAbi.h). Write one when the profile must be computed
 * (variants chosen by probing a driver, graphs generated beside the library); a data profile is
 * simpler otherwise, unless a compute unit needs a cost hook (below). The entry point only fills
 * in the version and returns static data. */
#include "profile/PluginAbi.h"

static const TilescopeVariantV1 kVariants[] = {
    /* name, graph file relative to this library's folder, fitted, provenance */
    {"base", "mychip.yaml", 0, "datasheet figures (say which document)"},
};

/* A cost hook (arch/ComputeCostHook.h) times one call of a compute unit whose `cost_hook:` names
 * it, where the graph's figures are not enough; tilescope takes the larger of its answer and the
 * graph's own ops / ops_per_cycle / clock. This one adds a systolic array's fill and drain: the
 * operands enter along a diagonal, so the first result leaves after m + n - 2 more cycles than
 * the steady rate gives. Pure, thread-safe, a few operations: it runs inside the evaluation. */
static double mychip_systolic_seconds(const TilescopeComputeTile* tile, const void* user) {
  (void)user;
  const double steady_cycles = tile->ops / tile->ops_per_cycle;
  if (tile->op_class != TILESCOPE_OP_MATMUL) return steady_cycles / tile->clock_hz;
  return (steady_cycles + (double)(tile->m + tile->n - 2)) / tile->clock_hz;
}

static const TilescopeCostHookV2 kCostHooks[] = {
    /* name (prefix it with the profile's), function, its user pointer */
    {"mychip-code.systolic", mychip_systolic_seconds, 0},
};

static const TilescopeProfileV2 kProfile = {
    "mychip-code",             /* profile:mychip-code */
    "0.1.0",                   /* this profile's version */
    "MyChip as a code plugin", /* description */
    kVariants,
    sizeof kVariants / sizeof kVariants[0],
    "base", /* default variant */
    kCostHooks,
    sizeof kCostHooks / sizeof kCostHooks[0],
};

__attribute__((visibility("default"))) const TilescopeProfileV2* tilescope_profile(
    uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  return &kProfile;
}
