#pragma once
// What starting one register tile costs the tiled GEMM kernel beyond its FMAs and its C traffic:
// the call of the micro-kernel, the loop-nest bookkeeping around it, the pipeline refill. The
// graph carries it as the latency of the edge into RF, which the analysis charges once per RF
// tile (docs/host.md). Measured with the kernel itself on an L1-resident 24x64x32 GEMM, once
// with K whole in every register tile (16 tiles) and once with K split to 1 per tile (512 tiles):
// the same FMAs, 496 more tile starts.
#include "arch/ArchitectureGraph.hpp"

namespace ts::host {

// Seconds per register tile start, less the C loads and stores the graph already charges at its
// L1 <-> RF bandwidths. `graph` is the host graph being built (nodes DRAM, RF, Core at least).
double register_tile_start_seconds(const ArchitectureGraph& graph, double seconds);

}  // namespace ts::host
