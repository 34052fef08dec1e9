#pragma once
// Reads a data profile's `kind: profile` file (docs/formats.md, "Profiles"). Every file it names
// is relative to the profile's folder and must exist; errors are InputError at the key at fault.
#include <string>

#include "profile/Profile.hpp"

namespace ts {

Profile load_profile_manifest(const std::string& profile_yaml);
// `file_name` locates errors and anchors the relative paths.
Profile parse_profile_manifest(const std::string& yaml_text, const std::string& file_name);

}  // namespace ts
