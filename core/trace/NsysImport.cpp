#include "trace/NsysImport.hpp"

#include "common/DataType.hpp"
#include "common/InputError.hpp"
#include "trace/NsysExport.hpp"
#include "trace/TraceImport.hpp"

namespace ts {

std::vector<ImporterOption> NsysImporter::options() const {
  std::vector<ImporterOption> out = trace_import_options();
  out.push_back({"dtype",
                 "data type of the NVTX operators' tensors (NVTX ranges record shapes, not "
                 "types): fp16, bf16, fp32",
                 false, "fp16"});
  return out;
}

Sniff NsysImporter::sniff(std::string_view first_line) const {
  return first_line.starts_with("SQLite format 3") ? Sniff::yes : Sniff::no;
}

TraceEvents read_nsys_for_import(const ImportRequest& request) {
  const auto given = request.options.find("dtype");
  const std::string dtype_text = given == request.options.end() ? "fp16" : given->second;
  const std::optional<DataType> dtype = parse_data_type(dtype_text);
  if (!dtype)
    throw InputError(SourceLocation{"dtype", 0, 0},
                     "'" + dtype_text + "': expected a data type such as fp16, bf16, fp32");
  TraceEvents events = read_nsys_export(request.file);
  // A tensor argument (one with a shape) gets the type; a scalar keeps none, as in Kineto.
  for (TraceOperator& op : events.operators)
    for (size_t i = 0; i < op.input_shapes.size() && i < op.input_dtypes.size(); ++i)
      if (!op.input_shapes[i].empty() && op.input_dtypes[i].empty())
        op.input_dtypes[i] = std::string(to_string(*dtype));
  return events;
}

ImportResult NsysImporter::import(const ImportRequest& request) const {
  return import_trace(read_nsys_for_import(request), request);
}

}  // namespace ts
