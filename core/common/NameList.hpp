#pragma once
// "a, b, c": how error messages list what was expected.
#include <string>
#include <vector>

namespace ts {

std::string join_names(const std::vector<std::string>& names);

}  // namespace ts
