#pragma once
// Writes a data profile's `kind: profile` file that load_profile_manifest reads back to the same
// profile: what `calibrate host --register` leaves in the user's profile folder.
#include <string>

#include "profile/Profile.hpp"

namespace ts {

// Paths are written relative to the manifest's folder where they lie under it, absolute
// otherwise, so that the folder can be moved with its graphs.
std::string profile_manifest_yaml(const Profile& profile, const std::string& profile_yaml);

// Writes to a temporary file beside `profile_yaml` and renames it over: nothing half-written.
void write_profile_manifest(const Profile& profile, const std::string& profile_yaml);

}  // namespace ts
