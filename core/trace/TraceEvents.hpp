#pragma once
// What a profiler's trace says, as plain values, before anything is matched or stored: the GPU
// (or NPU) kernels that ran, and the operators (PyTorch CPU operators, NVTX ranges, msprof
// operator rows) that launched them. Each reader (Kineto JSON, Nsight Systems SQLite, msprof CSV)
// fills a TraceEvents; one shared step (trace/TraceImport) then ties kernels to operators,
// classifies them, stores them as measurements and writes the workload of what ran. Keeping the
// readers to this one shape is what lets a new format be added without touching the rest.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts {

// An operator of the framework that launched kernels: `aten::mm`, an NVTX range, a msprof row.
struct TraceOperator {
  std::string name;
  double start_ns = 0;     // on the trace's clock (the same one as its kernels')
  double duration_ns = 0;  // 0 when the format gives none
  int64_t thread = -1;     // the host thread, -1 when unknown
  // Input shapes and data types in argument order, as recorded (`record_shapes` in PyTorch);
  // a scalar or a non-tensor argument has an empty shape and an empty dtype.
  std::vector<std::vector<int64_t>> input_shapes;
  std::vector<std::string> input_dtypes;
  bool has_shapes = false;       // the trace recorded shapes for this operator
  std::optional<size_t> parent;  // the enclosing operator (index into TraceEvents::operators)
  int64_t line = 0;              // where in the file it was read (line or row), 0 if unknown
  // How many runs of the operator this entry stands for: a reader of a large trace may merge
  // the repeats of an operator (same name, shapes and parent, each step of a training loop) into
  // one entry, with the first run's times, and tie their kernels to it (KinetoTrace does).
  int64_t occurrences = 1;
};

// A kernel as the device ran it.
struct TraceKernel {
  std::string name;  // demangled when the format gives it so; empty when name_id says it
  // The name as an index into TraceEvents::kernel_names, -1 when `name` holds it: a reader of a
  // large trace interns the names (a million kernels of a few hundred names). Read either way
  // with kernel_name().
  int32_t name_id = -1;
  double start_ns = 0;
  double duration_ns = 0;
  int device = 0;
  int64_t stream = -1;
  std::array<int64_t, 3> grid{0, 0, 0};   // zero when not recorded
  std::array<int64_t, 3> block{0, 0, 0};  // zero when not recorded
  int64_t shared_memory_bytes = -1;       // -1 when not recorded
  int registers_per_thread = -1;          // -1 when not recorded
  int64_t correlation_id = -1;            // ties the kernel to its launch; -1 when none
  // When and on which host thread the launch call ran (cudaLaunchKernel), when the reader knows:
  // an operator or NVTX range encloses the launch, not the kernel, which runs later. -1: not
  // known, and the shared step looks for an operator enclosing the kernel's own start instead.
  double launch_ns = -1;
  int64_t launch_thread = -1;
  // The operator that launched it, when the reader knows (a flow event, a correlation id whose
  // launch lies inside an operator, an NVTX range around the launch); the shared step fills it
  // for the others where it can.
  std::optional<size_t> op;
  int64_t line = 0;  // where in the file it was read (line or row), 0 if unknown
};

struct TraceEvents {
  std::string file;          // the path read, for messages
  std::string format;        // kineto, nsys, msprof
  std::string tool_version;  // what wrote the file, as it says (PyTorch 2.3, export schema 3.11)
  std::string device_name;   // the GPU or NPU the trace ran on, when the file says
  std::vector<TraceOperator> operators;
  std::vector<TraceKernel> kernels;
  std::vector<std::string> kernel_names;  // interned names, by TraceKernel::name_id
  std::vector<std::string> notes;  // what the reader skipped or could not tell, for the summary
};

inline const std::string& kernel_name(const TraceEvents& events, const TraceKernel& kernel) {
  return kernel.name_id >= 0 ? events.kernel_names[static_cast<size_t>(kernel.name_id)]
                             : kernel.name;
}

}  // namespace ts
