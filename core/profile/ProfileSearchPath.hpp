#pragma once
// Where profiles are looked for, first to last; the first profile of a name wins, so a user's
// copy overrides a bundled one:
//   1. each folder of $TILESCOPE_PLUGIN_PATH (colon-separated), in its order;
//   2. the user's data folder: $XDG_DATA_HOME/tilescope/plugins, or
//      ~/.local/share/tilescope/plugins when XDG_DATA_HOME is unset or empty;
//   3. the bundled profiles: <data folder>/plugins (core/common/DataDirectory: the build tree's
//      link to the source tree's plugins/, or <prefix>/share/tilescope/plugins).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ts {

struct ProfileFolder {
  std::filesystem::path path;
  std::string source;  // "TILESCOPE_PLUGIN_PATH", "user data folder", "bundled"
};

// The test seam: the same order from given values (nullptr: unset).
std::vector<ProfileFolder> profile_search_path(const char* plugin_path, const char* xdg_data_home,
                                               const char* home,
                                               const std::optional<std::filesystem::path>& data);

// The user's profile folder ($XDG_DATA_HOME/tilescope/plugins, or
// ~/.local/share/tilescope/plugins), from given values; none when neither is set.
std::optional<std::filesystem::path> user_profile_folder(const char* xdg_data_home,
                                                         const char* home);
// From this process's environment.
std::optional<std::filesystem::path> user_profile_folder();

// From this process's environment and data folder.
std::vector<ProfileFolder> profile_search_path();

}  // namespace ts
