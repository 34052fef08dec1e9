#include "trace/TraceFileImport.hpp"

#include <stdexcept>

#include "trace/KinetoTrace.hpp"
#include "trace/MsprofImport.hpp"
#include "trace/MsprofSummary.hpp"
#include "trace/NsysImport.hpp"

namespace ts {

TraceFileImport import_trace_file(const std::string& format, const ImportRequest& request,
                                  const TraceImportProgress& progress) {
  TraceFileImport out;
  if (format == "kineto") {
    out.result =
        import_trace(read_kineto_trace(request.file, progress), request, progress, &out.kernels);
  } else if (format == "nsys") {
    // The SQLite and msprof readers are quick beside the store (no progress of their own); the
    // shared step reports its stages and takes the cancel.
    out.result = import_trace(read_nsys_for_import(request), request, progress, &out.kernels);
  } else if (format == "msprof") {
    out.result = import_trace(read_msprof_summary(request.file), msprof_import_request(request),
                              progress, &out.kernels);
  } else {
    throw std::invalid_argument("no trace reader for the format '" + format + "'");
  }
  return out;
}

}  // namespace ts
