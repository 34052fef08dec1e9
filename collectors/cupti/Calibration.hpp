#pragma once
// The runner's calibration mode: device properties and microbenchmarks for the figures of an
// architecture graph (HBM, L2 and shared-memory bandwidth, tensor-core peak, launch overhead),
// each timed like a plan job (CUPTI kernel durations, median of repetitions).
#include <functional>
#include <string>

#include "ActivitySession.hpp"
#include "DeviceJob.hpp"

namespace ts::cupti {

// Writes one JSON line per figure through `emit`; progress lines go to `log`.
void run_calibration(int device, ActivitySession& session, const LibraryHandles& handles,
                     const std::function<void(const std::string&)>& emit,
                     const std::function<void(const std::string&)>& log);

}  // namespace ts::cupti
