#include "trace/MsprofImport.hpp"

#include "common/InputError.hpp"
#include "profile/ProfileRegistry.hpp"
#include "trace/CsvMeasurements.hpp"
#include "trace/MsprofSummary.hpp"
#include "trace/TraceImport.hpp"

namespace ts {
namespace {

// The bundled profile whose kernel rules know CANN's operator types (plugins/ascend).
constexpr const char* kAscendProfile = "ascend";

}  // namespace

std::vector<ImporterOption> MsprofImporter::options() const {
  std::vector<ImporterOption> out = trace_import_options();
  for (ImporterOption& o : out)
    if (o.name == "profile") o.default_value = kAscendProfile;
  return out;
}

Sniff MsprofImporter::sniff(std::string_view first_line) const {
  try {
    const CsvTable table = parse_csv(std::string(first_line), "header");
    if (is_msprof_header(table.header)) return Sniff::yes;
    return names_msprof_columns(table.header) ? Sniff::maybe : Sniff::no;
  } catch (const InputError&) {
    return Sniff::no;
  }
}

ImportRequest msprof_import_request(ImportRequest request) {
  // msprof names tasks by CANN operator type (MatMulV2), which only the Ascend profile's rules
  // read; a caller that names no profile (the GUI, a test) gets it when it is installed.
  if (!request.options.count("profile") && installed_profiles().find(kAscendProfile))
    request.options["profile"] = kAscendProfile;
  return request;
}

ImportResult MsprofImporter::import(const ImportRequest& request) const {
  TraceEvents events = read_msprof_summary(request.file);
  return import_trace(std::move(events), msprof_import_request(request));
}

}  // namespace ts
