#pragma once
// The sizes that drive a command's memory and time, each with the one limit that every reader
// and builder of that size checks (docs/formats.md, "Sizes"). Each is far above real use; it
// bounds what a mistaken or hostile input can cost, and past it the input is refused at its
// line (exit 2) before the work starts, never an allocation that fails or a loop without end.
#include <cstddef>
#include <cstdint>

namespace ts {

// Bytes of a YAML or JSON input (a graph, workload, mapping, model, strategy, cluster,
// workspace, manifest). The largest bundled is under 1 MiB.
inline constexpr size_t kMaxInputFileBytes = size_t{64} << 20;

// Points one sweep evaluates (a grid, a draw, a strategy grid's combinations): each is a suite
// predicted on a graph and a row in the store.
inline constexpr size_t kMaxSweepPoints = 1'000'000;

// Micro-batches a rank runs in one training iteration (Megatron's largest published runs use
// hundreds): each is a chain of tasks on every pipeline stage.
inline constexpr int64_t kMaxMicroBatches = 100'000;

// Tasks of one simulation's executor, and the longest one may take (about 32 years): a duration
// past it comes from a rate near zero and is an error naming the task.
inline constexpr size_t kMaxTasks = 20'000'000;
inline constexpr double kMaxTaskSeconds = 1e9;

}  // namespace ts
