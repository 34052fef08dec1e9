#pragma once
// How many threads a command's work uses (`--threads` of predict, compare, correlate and sweep),
// and the one way core spreads independent items over them (a suite's operators, a comparison's
// graphs, a sweep's points): TBB, every item its own task taken by the next free thread, so that
// items whose costs differ by orders of magnitude (a GEMM whose search converges at once beside a
// fused attention's) still balance.
#include <cstddef>
#include <functional>

namespace ts {

// The threads this process may run on (its CPU affinity and quota, as TBB counts them): what
// `--threads` is when it is not given.
int available_threads();

// Runs `work` on the calling thread with at most `threads` threads for every parallel loop
// inside it, the mapper's own included, so that 1 is the serial program. 0: available_threads().
// Rethrows what `work` throws.
void run_with_threads(int threads, const std::function<void()>& work);

// Calls each(i) for every i in [0, count), on the threads of the calling arena (all of them,
// or run_with_threads'), in no particular order. Errors come out as from a serial loop: once an
// item throws, no later item starts, and the exception of the first item that threw (by index)
// is rethrown when the items under way have finished. Each item is isolated: a thread that waits
// inside one (for the mapper's parallel reductions) works on that item's tasks alone meanwhile,
// so that items do not pile up on one thread's stack, each waiting for the one above it.
void for_each_item(size_t count, const std::function<void(size_t)>& each);

}  // namespace ts
