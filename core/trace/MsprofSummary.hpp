#pragma once
// Ascend msprof operator summaries (`op_summary_*.csv`, from `msprof --export=on` or
// `msprof --analyze`), read into TraceEvents: each row is one task that ran on the NPU, an
// operator with its one kernel. The layout is Huawei's "op_summary (operator summary)"
// reference in the CANN Profiling Tool user guide; columns are renamed now and then between CANN
// releases, so each is looked up by name among its known spellings (kMsprofColumns). Times are
// microseconds; shapes read `1,128,768;768,768` (`;` between arguments) and data types
// `FLOAT16;FLOAT16` (GE's names, `DT_` or not), given tilescope's names (fp16) where it has one.
#include <string>
#include <vector>

#include "trace/TraceEvents.hpp"

namespace ts {

// A column of op_summary and the names it has had, the current one first.
struct MsprofColumn {
  std::string what;  // for messages
  std::vector<std::string> names;
  bool needed = false;
};
const std::vector<MsprofColumn>& msprof_columns();

// True when a header row names the columns of an op_summary (an operator name and a task
// duration), whichever release wrote it.
bool is_msprof_header(const std::vector<std::string>& header);
// True when a header names any op_summary column: a summary whose needed columns were renamed,
// which the import should refuse naming them rather than pass to another importer.
bool names_msprof_columns(const std::vector<std::string>& header);

// Throws InputError: at line 1 naming the column expected (with its known names) when a needed
// one is missing, and at the field for a time or a shape that does not read.
TraceEvents read_msprof_summary(const std::string& path);

}  // namespace ts
