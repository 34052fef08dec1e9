#pragma once
// Which profiler wrote a file, judged by its content, for a caller that is handed a path without
// a format (the GUI's File > Import trace and its drop handler). An Nsight Systems export is an
// SQLite file like a tilescope results database, so an .sqlite is told apart by its tables
// before anyone opens it as a store.
#include <string>

namespace ts {

// "kineto" (a Chrome trace, plain or gzip), "nsys" (an SQLite file with the export's kernel or
// string tables), "msprof" (a CSV whose header names msprof's columns), or "" when the file is
// none of them (a results database, a YAML input, a simulation). Never throws: an unreadable
// file is "" and the caller's own open reports why.
std::string trace_format_of(const std::string& path);

// True for an SQLite file holding an Nsight Systems export's CUPTI_ACTIVITY_KIND_KERNEL or
// StringIds table (an export of a report without kernels still has StringIds).
bool is_nsys_export(const std::string& path);

}  // namespace ts
