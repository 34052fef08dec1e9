#include "BuiltinCollectors.hpp"

#include "host/HostSuiteCollector.hpp"
#include "runner/CuptiRunnerCollector.hpp"

namespace ts {

void register_builtin_collectors(CollectorRegistry& registry) {
  if (!registry.names().empty()) return;  // already registered
  registry.add(host::make_host_suite_collector());
  registry.add(runner::make_cupti_runner_collector());
}

}  // namespace ts
