#include "profile/ProfileRegistry.hpp"

#include <algorithm>
#include <optional>

#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "profile/CodePlugin.hpp"
#include "profile/ProfileManifest.hpp"

namespace ts {
namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestName = "profile.yaml";

// `x.so`, or a versioned `x.so.1.2`; not `x.so.yaml`.
bool is_shared_library(const fs::path& file) {
  const std::string name = file.filename().string();
  const size_t at = name.rfind(".so");
  if (at == std::string::npos || at == 0) return false;
  const std::string_view version = std::string_view(name).substr(at + 3);
  return version.empty() ||
         (version[0] == '.' && version.find_first_not_of(".0123456789") == std::string_view::npos);
}

// Directory entries sorted by name, so that the order of loading never depends on the file
// system; unreadable folders give nothing (a missing user folder is the common case).
std::vector<fs::path> sorted_entries(const fs::path& folder) {
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end());
  return entries;
}

// libascend-extra.so.1 -> ascend-extra
std::string library_profile_name(const fs::path& library) {
  std::string name = library.filename().string();
  name = name.substr(0, name.find(".so"));
  if (name.rfind("lib", 0) == 0) name.erase(0, 3);
  return name;
}

}  // namespace

std::string ProfileFailure::line() const {
  // Loaders' errors already start with `file:line:col:`.
  return problem.rfind(path, 0) == 0 ? problem : path + ": " + problem;
}

void ProfileRegistry::add(Profile profile, const std::string& source) {
  if (const LoadedProfile* first = find(profile.name)) {
    shadowed_.push_back(profile.origin + ": profile " + profile.name + " is shadowed by " +
                        first->profile.origin + ", earlier in the search path");
    return;
  }
  profiles_.push_back({std::move(profile), source});
}

void ProfileRegistry::load_folder(const ProfileFolder& folder) {
  auto load_data = [&](const fs::path& manifest) {
    try {
      add(load_profile_manifest(manifest.string()), folder.source);
    } catch (const InputError& e) {
      failures_.push_back(
          {manifest.string(), e.what(), manifest.parent_path().filename().string()});
    }
  };
  auto load_code = [&](const fs::path& library) {
    try {
      add(load_code_plugin(library), folder.source);
    } catch (const ProfileLoadError& e) {
      failures_.push_back({e.path(), e.problem(), library_profile_name(library)});
    }
  };
  auto load_profile_folder = [&](const fs::path& dir) {
    std::error_code ec;
    if (fs::is_regular_file(dir / kManifestName, ec)) load_data(dir / kManifestName);
    for (const fs::path& entry : sorted_entries(dir))
      if (is_shared_library(entry) && fs::is_regular_file(entry, ec)) load_code(entry);
  };

  std::error_code ec;
  if (fs::is_regular_file(folder.path, ec)) {
    if (is_shared_library(folder.path))
      load_code(folder.path);
    else
      failures_.push_back({folder.path.string(), "not a folder or a shared library (*.so)", ""});
    return;
  }
  if (!fs::is_directory(folder.path, ec)) {
    // Only a folder that the user named must exist; the default places often do not.
    if (folder.source == "TILESCOPE_PLUGIN_PATH")
      failures_.push_back(
          {folder.path.string(), "no such folder (named in TILESCOPE_PLUGIN_PATH)", ""});
    return;
  }
  if (fs::is_regular_file(folder.path / kManifestName, ec)) {
    load_profile_folder(folder.path);
    return;
  }
  for (const fs::path& entry : sorted_entries(folder.path)) {
    if (fs::is_directory(entry, ec))
      load_profile_folder(entry);
    else if (is_shared_library(entry))
      load_code(entry);
  }
}

ProfileRegistry ProfileRegistry::discover(const std::vector<ProfileFolder>& search_path) {
  ProfileRegistry registry;
  for (const ProfileFolder& folder : search_path) registry.load_folder(folder);
  return registry;
}

const LoadedProfile* ProfileRegistry::find(std::string_view name) const {
  auto it = std::find_if(profiles_.begin(), profiles_.end(),
                         [&](const LoadedProfile& p) { return p.profile.name == name; });
  return it == profiles_.end() ? nullptr : &*it;
}

const ProfileFailure* ProfileRegistry::find_failure(std::string_view likely_name) const {
  auto it = std::find_if(failures_.begin(), failures_.end(),
                         [&](const ProfileFailure& f) { return f.likely_name == likely_name; });
  return it == failures_.end() ? nullptr : &*it;
}

std::string ProfileRegistry::names() const {
  std::string text;
  for (const auto& p : profiles_) text += (text.empty() ? "" : ", ") + p.profile.name;
  return text.empty() ? "none" : text;
}

void ProfileRegistry::check_graphs() {
  std::vector<LoadedProfile> usable;
  for (LoadedProfile& loaded : profiles_) {
    std::optional<ProfileFailure> broken;
    for (const ProfileVariant& v : loaded.profile.variants) {
      try {
        load_architecture(v.arch_file);
      } catch (const std::exception& e) {  // InputError, or a file that cannot be read
        broken = ProfileFailure{loaded.profile.origin, "variant " + v.name + ": " + e.what(),
                                loaded.profile.name};
        break;
      }
    }
    if (broken)
      failures_.push_back(std::move(*broken));
    else
      usable.push_back(std::move(loaded));
  }
  profiles_ = std::move(usable);
}

const ProfileRegistry& installed_profiles() {
  static const ProfileRegistry registry = ProfileRegistry::discover(profile_search_path());
  return registry;
}

}  // namespace ts
