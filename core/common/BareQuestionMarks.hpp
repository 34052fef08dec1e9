#pragma once
// yaml-cpp reads a bare `?` as the explicit-key indicator and rejects it as a value, yet the
// formats write a free choice as `M: ?`. This rewrites such a `?` in value position to `~`, of
// the same width so that every mark stays right; YamlSource::is_free then finds the `?` in the
// original text at the node's mark.
#include <string>

namespace ts {

std::string mark_bare_questions(const std::string& text);

}  // namespace ts
