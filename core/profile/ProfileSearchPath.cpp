#include "profile/ProfileSearchPath.hpp"

#include <cstdlib>

#include "common/DataDirectory.hpp"

namespace ts {
namespace fs = std::filesystem;

std::vector<ProfileFolder> profile_search_path(const char* plugin_path, const char* xdg_data_home,
                                               const char* home,
                                               const std::optional<fs::path>& data) {
  std::vector<ProfileFolder> folders;
  if (plugin_path != nullptr) {
    const std::string list = plugin_path;
    size_t start = 0;
    while (start <= list.size()) {
      const size_t colon = std::min(list.find(':', start), list.size());
      // An empty entry ("a::b", a trailing ':') is a slip, not the working folder.
      if (colon > start)
        folders.push_back({list.substr(start, colon - start), "TILESCOPE_PLUGIN_PATH"});
      start = colon + 1;
    }
  }
  if (auto user = user_profile_folder(xdg_data_home, home))
    folders.push_back({*user, "user data folder"});
  if (data) folders.push_back({*data / "plugins", "bundled"});
  return folders;
}

std::optional<fs::path> user_profile_folder(const char* xdg_data_home, const char* home) {
  if (xdg_data_home != nullptr && *xdg_data_home != '\0')
    return fs::path(xdg_data_home) / "tilescope" / "plugins";
  if (home != nullptr && *home != '\0')
    return fs::path(home) / ".local" / "share" / "tilescope" / "plugins";
  return std::nullopt;
}

std::optional<fs::path> user_profile_folder() {
  return user_profile_folder(std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
}

std::vector<ProfileFolder> profile_search_path() {
  return profile_search_path(std::getenv("TILESCOPE_PLUGIN_PATH"), std::getenv("XDG_DATA_HOME"),
                             std::getenv("HOME"), data_directory());
}

}  // namespace ts
