#pragma once
// The collectors built into tilescope, registered by one explicit call (core/measure/Collector.hpp
// says why not by static objects), as trace/Importer's register_builtin_importers does for the
// importers. A new collector is one more line in BuiltinCollectors.cpp.
#include "measure/Collector.hpp"

namespace ts {

// Adds the host and the cupti collectors; does nothing when the registry already has collectors.
void register_builtin_collectors(CollectorRegistry& registry);

}  // namespace ts
