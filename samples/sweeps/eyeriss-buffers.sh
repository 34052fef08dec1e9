#!/bin/sh
# A sweep of the Timeloop/Accelergy Eyeriss-like design (samples/arch/timeloop-eyeriss_like.yaml)
# over its buffers, on its convolution layer, with the Pareto fronts of suite time against suite
# energy and against graph area (docs/sweep.md, "Energy, area and EDP"): the global buffer's and
# the PEs' weight scratchpad's capacities, and the number of MAC units. Run from the repository
# root; TILESCOPE names the binary (default: tilescope on the PATH), the first argument the results
# database (default eyeriss-buffers.sqlite).
#
# The graph gives every node an energy per action and an area per instance (Accelergy's ERT and
# ART for the design at its own sizes). A capacity moves time and energy (tiles, refetches, and so
# accesses), never area: the graph does not say how a buffer's area goes with its size, and
# tilescope invents no such law. What moves area is an instance count, so the sweep also varies
# the MAC units (42, 84 or all 168, each PE keeping its scratchpads): the area front trades MACs
# against time.
exec "${TILESCOPE:-tilescope}" sweep \
  --arch samples/arch/timeloop-eyeriss_like.yaml \
  --workload samples/workloads/timeloop-eyeriss_like.yaml \
  --vary node:shared_glb.capacity=16KiB,128KiB \
  --vary node:weights_spad.capacity=64B,128B,384B \
  --vary node:mac.instances=42,84,168 \
  --db "${1:-eyeriss-buffers.sqlite}" --summary
