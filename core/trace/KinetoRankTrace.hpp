#pragma once
// A PyTorch profiler (Kineto) trace as a RankTrace: every kernel, memory copy and set on its
// stream, the CPU operators and runtime calls with the correlation ids (or `ac2g` flows) that tie
// launches to GPU work, the ProfilerStep#N iterations, collectives' sizes (the kernel's or its
// record_param_comms operator's `In msg nelems` and `dtype`), and the rank (`distributedInfo`).
// Streamed through ChromeTraceStream like the import (KinetoTrace): memory is what is kept, a few
// dozen bytes per event, not the file.
#include <functional>
#include <string>

#include "trace/RankTrace.hpp"

namespace ts {

// `progress` is told the fraction read and returns false to stop (TraceImportCancelled).
// Throws InputError where the JSON breaks or an event lacks what it needs.
RankTrace read_kineto_rank_trace(const std::string& path,
                                 const std::function<bool(double)>& progress = {});

// Bytes per element of a dtype as PyTorch names it in a trace (Float, BFloat16, c10::Half,
// float32, ...); 0 when not known.
int64_t dtype_bytes(std::string_view dtype);

}  // namespace ts
