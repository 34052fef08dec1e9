// The importers of this build. A new importer adds one line here; the CLI offers it as
// `tilescope import NAME` with the options it declares.
#include "trace/CsvImport.hpp"
#include "trace/Importer.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/MsprofImport.hpp"
#include "trace/NsysImport.hpp"
#include "trace/RunnerImport.hpp"

namespace ts {

void register_builtin_importers(ImporterRegistry& registry) {
  if (!registry.names().empty()) return;
  registry.add(std::make_unique<RunnerImporter>());
  registry.add(std::make_unique<CsvImporter>());
  registry.add(std::make_unique<KinetoImporter>());
  registry.add(std::make_unique<NsysImporter>());
  registry.add(std::make_unique<MsprofImporter>());
}

}  // namespace ts
