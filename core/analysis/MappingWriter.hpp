#pragma once
// Writes a resolved mapping back as a `kind: mapping` file, so that the mapper's choice can be
// kept, read, edited and replayed with `predict --mapping`.
#include <string>

#include "analysis/MappingProgram.hpp"

namespace ts {

std::string mapping_yaml(const MappingProgram& program, const std::string& name,
                         const std::string& header_comment);

}  // namespace ts
