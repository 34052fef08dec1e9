#pragma once
// Nsight Systems reports exported as SQLite (`nsys export --type sqlite report.nsys-rep`), read
// into TraceEvents. The layout is NVIDIA's "SQLite Schema Reference" (Nsight Systems User
// Guide, "Exporter"); it grows by tables and columns from release to release and tables are
// created only when the report has such events, so every column is looked up by name:
//
// - kernels: CUPTI_ACTIVITY_KIND_KERNEL (start, end in ns; deviceId, streamId, gridX/Y/Z,
//   blockX/Y/Z, staticSharedMemory + dynamicSharedMemory, registersPerThread, correlationId;
//   the name is a StringIds id in demangledName, else shortName, else mangledName);
// - the launches: CUPTI_ACTIVITY_KIND_RUNTIME (correlationId, start, globalTid), which say on
//   which host thread and when each kernel was launched (TraceKernel::launch_ns, launch_thread);
// - operators: NVTX_EVENTS push/pop and start/end ranges (eventType 59 and 60; the text in
//   `text`, or a StringIds id in `textId`) on the thread that opened them. The shared step
//   (KernelOperatorMatch) gives each kernel the innermost range around its launch, so the reader
//   ties nothing itself. PyTorch's emit_nvtx texts give shapes too (NsysNvtxText);
// - the GPU's name: TARGET_INFO_GPU; the export's schema version: EXPORT_META_DATA.
//
// Kernels (start, end and a name column) and StringIds are needed; a missing one is an
// InputError naming the file, the table and the column. The rest is optional: each thing
// missing is a note, and the kernels import without it.
#include <string>

#include "trace/TraceEvents.hpp"

namespace ts {

// ENUM_NSYS_EVENT_TYPE values of NVTX ranges in NVTX_EVENTS.eventType.
inline constexpr int kNvtxPushPopRange = 59;
inline constexpr int kNvtxStartEndRange = 60;

// Opens the file read-only; nothing is written beside it. Throws InputError when it is not an
// SQLite file, or a needed table or column is missing.
TraceEvents read_nsys_export(const std::string& path);

}  // namespace ts
