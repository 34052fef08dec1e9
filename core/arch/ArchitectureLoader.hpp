#pragma once
// Reads a `kind: architecture` file (docs/formats.md) into a finalized graph. Errors are
// InputError pointing at the node or key at fault.
#include <string>

#include "arch/ArchitectureGraph.hpp"

namespace ts {

ArchitectureGraph load_architecture(const std::string& path);
// `file_name` locates errors and anchors the relative paths of mapping templates.
ArchitectureGraph parse_architecture(const std::string& yaml_text, const std::string& file_name);

}  // namespace ts
