/* A code plugin of ABI 2 with a cost hook (arch/ComputeCostHook.h), built by tests/CMakeLists.txt
 * for the profile tests: a systolic array's fill and drain on top of the steady rate, m + n - 2
 * cycles per matmul call (the operands enter along a diagonal); vector calls at the steady rate. */
#include "profile/PluginAbi.h"

static double fill_drain_seconds(const TilescopeComputeTile* tile, const void* user) {
  const double steady_cycles = tile->ops / tile->ops_per_cycle;
  const double* extra = (const double*)user; /* cycles added to every call, from the table */
  if (tile->op_class != TILESCOPE_OP_MATMUL) return steady_cycles / tile->clock_hz;
  return (steady_cycles + (double)(tile->m + tile->n - 2) + *extra) / tile->clock_hz;
}

static const double kNoExtraCycles = 0.0;

static const TilescopeVariantV1 kVariants[] = {
    {"v1", "toy-hooked-chip.yaml", 0, "the two-level test graph with a systolic PE"},
};

static const TilescopeCostHookV2 kHooks[] = {
    {"toy-hooked.fill", fill_drain_seconds, &kNoExtraCycles},
};

static const TilescopeProfileV2 kProfile = {
    "toy-hooked", "0.2.0", "a test code plugin with a cost hook", kVariants, 1u, "v1", kHooks, 1u,
};

const TilescopeProfileV2* tilescope_profile(uint32_t* abi_version) {
  *abi_version = TILESCOPE_PROFILE_ABI_VERSION;
  return &kProfile;
}
