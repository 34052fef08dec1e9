/* What a compute unit's cost hook is asked and answers: the C interface through which a code
 * plugin (profile/PluginAbi.h, ABI 2) times one call of a compute unit where the graph's figures
 * are not enough (a systolic array's fill and drain, a unit whose rate depends on the tile's
 * shape in a way `ops_per_cycle` and `granule` cannot say).
 *
 * A graph's compute node names the hook (`cost_hook: NAME`); the analysis then calls it for every
 * call of that unit it times, with the call's tile, and takes the LARGER of the hook's answer and
 * the graph's own figure (ops / ops_per_cycle / clock). A hook can add time, never remove it:
 * the mapper prunes with the graph's compute floor, which must stay a lower bound.
 *
 * The function must be pure (the same tile, the same answer), thread-safe (the mapper evaluates
 * on several threads) and cheap (it runs inside the evaluation loop: a few arithmetic
 * operations; precompute tables when the plugin loads). It must not throw or call back into
 * tilescope. */
#ifndef TILESCOPE_ARCH_COMPUTE_COST_HOOK_H
#define TILESCOPE_ARCH_COMPUTE_COST_HOOK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* op_class */
#define TILESCOPE_OP_MATMUL 0u
#define TILESCOPE_OP_ELEMENTWISE 1u
#define TILESCOPE_OP_REDUCTION 2u
#define TILESCOPE_OP_LOOKUP 3u

/* dtype */
#define TILESCOPE_DTYPE_FP32 0u
#define TILESCOPE_DTYPE_FP16 1u
#define TILESCOPE_DTYPE_BF16 2u
#define TILESCOPE_DTYPE_FP8 3u
#define TILESCOPE_DTYPE_INT8 4u
#define TILESCOPE_DTYPE_INT16 5u
#define TILESCOPE_DTYPE_INT32 6u

/* One call of a compute unit, as the analysis times it. */
typedef struct TilescopeComputeTile {
  uint32_t op_class;    /* TILESCOPE_OP_* */
  uint32_t dtype;       /* TILESCOPE_DTYPE_*: the type the unit computes in */
  int64_t m, n, k;      /* matmul: the call's extents, unpadded; 1 for the vector classes */
  int64_t elements;     /* vector classes: the call's elements, unpadded; 1 for matmul */
  int64_t batch;        /* independent repetitions within the call (batch dimensions) */
  double ops;           /* the graph's count: padded to the granule, operations priced by kind */
  double ops_per_cycle; /* the rate the graph gives this call (issue limits applied) */
  double clock_hz;      /* the unit's clock */
} TilescopeComputeTile;

/* Seconds one call takes; `user` is the hook's own pointer, passed back unchanged. */
typedef double (*TilescopeComputeSeconds)(const TilescopeComputeTile* tile, const void* user);

#ifdef __cplusplus
}
#endif

#endif
