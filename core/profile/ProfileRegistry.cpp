#include "profile/ProfileRegistry.hpp"

#include <algorithm>
#include <iostream>
#include <optional>

#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "profile/CodePlugin.hpp"
#include "profile/ProfileCostHooks.hpp"
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

// What the search path holds, in its order, before anything is loaded: the code plugins among
// it are checked together (PluginChecker::check_all) before the registry takes them in order.
struct ProfileRegistry::Found {
  enum class Kind { data, code, failure } kind;
  fs::path path;
  std::string source;
  std::string problem;  // failure
};

void ProfileRegistry::find_in_folder(const ProfileFolder& folder, std::vector<Found>& found) {
  auto add_profile_folder = [&](const fs::path& dir) {
    std::error_code ec;
    if (fs::is_regular_file(dir / kManifestName, ec))
      found.push_back({Found::Kind::data, dir / kManifestName, folder.source, ""});
    for (const fs::path& entry : sorted_entries(dir))
      if (is_shared_library(entry) && fs::is_regular_file(entry, ec))
        found.push_back({Found::Kind::code, entry, folder.source, ""});
  };

  std::error_code ec;
  if (fs::is_regular_file(folder.path, ec)) {
    if (is_shared_library(folder.path))
      found.push_back({Found::Kind::code, folder.path, folder.source, ""});
    else
      found.push_back({Found::Kind::failure, folder.path, folder.source,
                       "not a folder or a shared library (*.so)"});
    return;
  }
  if (!fs::is_directory(folder.path, ec)) {
    // Only a folder that the user named must exist; the default places often do not.
    if (folder.source == "TILESCOPE_PLUGIN_PATH")
      found.push_back({Found::Kind::failure, folder.path, folder.source,
                       "no such folder (named in TILESCOPE_PLUGIN_PATH)"});
    return;
  }
  if (fs::is_regular_file(folder.path / kManifestName, ec)) {
    add_profile_folder(folder.path);
    return;
  }
  for (const fs::path& entry : sorted_entries(folder.path)) {
    if (fs::is_directory(entry, ec))
      add_profile_folder(entry);
    else if (is_shared_library(entry))
      found.push_back({Found::Kind::code, entry, folder.source, ""});
  }
}

void ProfileRegistry::load(const Found& found, PluginChecker& checker) {
  const fs::path& path = found.path;
  switch (found.kind) {
    case Found::Kind::failure:
      failures_.push_back({path.string(), found.problem, "", false});
      return;
    case Found::Kind::data:
      try {
        add(load_profile_manifest(path.string()), found.source);
      } catch (const InputError& e) {
        failures_.push_back(
            {path.string(), e.what(), path.parent_path().filename().string(), false});
      }
      return;
    case Found::Kind::code:
      break;
  }
  ++code_plugins_found_;
  const PluginVerdict& verdict = checker.verdict(path);
  if (verdict.kind != PluginVerdict::Kind::usable) {
    failures_.push_back({path.string(), verdict.problem, library_profile_name(path),
                         verdict.kind == PluginVerdict::Kind::faulty});
    return;
  }
  try {
    Profile profile = profile_from_answer(path, verdict.answer);
    declare_plugin_cost_hooks(path.string(), profile.cost_hooks);
    add(std::move(profile), found.source);
  } catch (const ProfileLoadError& e) {
    failures_.push_back({e.path(), e.problem(), library_profile_name(path), false});
  }
}

ProfileRegistry ProfileRegistry::discover(const std::vector<ProfileFolder>& search_path) {
  return discover(search_path, plugin_check_options());
}

ProfileRegistry ProfileRegistry::discover(const std::vector<ProfileFolder>& search_path,
                                          const PluginCheckOptions& checks) {
  std::vector<Found> found;
  for (const ProfileFolder& folder : search_path) find_in_folder(folder, found);
  PluginChecker checker(checks);
  std::vector<fs::path> libraries;
  for (const Found& f : found)
    if (f.kind == Found::Kind::code) libraries.push_back(f.path);
  checker.check_all(libraries);
  checker.save();
  ProfileRegistry registry;
  for (const Found& f : found) registry.load(f, checker);
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

std::vector<std::string> ProfileRegistry::skipped_plugin_lines() const {
  std::vector<std::string> lines;
  for (const ProfileFailure& f : failures_)
    if (f.faulty) lines.push_back("tilescope: plugin " + f.path + " " + f.problem + "; skipped");
  return lines;
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
                                loaded.profile.name, false};
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
  static const ProfileRegistry registry = [] {
    ProfileRegistry r = ProfileRegistry::discover(profile_search_path());
    for (const std::string& line : r.skipped_plugin_lines()) std::cerr << line << std::endl;
    return r;
  }();
  return registry;
}

}  // namespace ts
