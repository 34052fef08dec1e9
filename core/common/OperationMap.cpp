#include "common/OperationMap.hpp"

#include <string>

namespace ts {

std::array<std::optional<YAML::Node>, kOperationKinds> operation_entries(const YamlSource& src,
                                                                         const YAML::Node& map,
                                                                         std::string_view what) {
  src.expect_map(map, what);
  std::array<std::optional<YAML::Node>, kOperationKinds> entries;
  for (const auto& kv : map) {
    const std::string key = src.text(kv.first, "operation kind");
    const std::optional<OperationKind> kind = parse_operation_kind(key);
    if (!kind)
      src.fail(kv.first, "unknown operation kind '" + key +
                             "'; expected one of: " + std::string(operation_kind_names()));
    auto& entry = entries[static_cast<size_t>(*kind)];
    if (entry) src.fail(kv.first, "operation kind '" + key + "' given twice");
    entry = kv.second;
  }
  return entries;
}

}  // namespace ts
