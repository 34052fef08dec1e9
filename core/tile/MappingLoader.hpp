#pragma once
// Reads a `kind: mapping` file (docs/formats.md) into a tree. Only the file's own structure is
// checked here (node types, keys, factors, orders); whether the tree fits an operator and a graph
// is checked where both are known.
#include <string>

#include "tile/MappingTree.hpp"

namespace ts {

Mapping load_mapping(const std::string& path);
Mapping parse_mapping(const std::string& text, const std::string& file_name);

}  // namespace ts
