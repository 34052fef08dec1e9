#pragma once
// A YAML map keyed by operation kind (`{exp: 1, div: 1}`): a workload stage's operations per
// point and a compute capability's operation costs are both written this way.
#include <yaml-cpp/yaml.h>

#include <array>
#include <optional>
#include <string_view>

#include "common/OperationKind.hpp"
#include "common/YamlSource.hpp"

namespace ts {

// The value node of each kind the map names (none where absent). Fails at the map when it is
// not one, and at a key that is not a kind or appears twice; `what` names the map in messages.
std::array<std::optional<YAML::Node>, kOperationKinds> operation_entries(const YamlSource& src,
                                                                         const YAML::Node& map,
                                                                         std::string_view what);

}  // namespace ts
