#pragma once
// Reads a `kind: mapping` file (docs/formats.md) into a tree. Only the file's own structure is
// checked here (node types, keys, factors, orders); whether the tree fits an operator and a graph
// is checked where both are known.
#include <string>

#include "tile/MappingTree.hpp"

namespace ts {

Mapping load_mapping(const std::string& path);
// load_mapping, read once per version of the file: a graph's templates are instantiated for
// every operator of every sweep point, and parsing the YAML again each time was a fifth of a
// sweep's time. The file's size and modification time tell a version (an edited template is
// read again); the cache is shared by all threads.
Mapping load_mapping_cached(const std::string& path);
Mapping parse_mapping(const std::string& text, const std::string& file_name);

}  // namespace ts
