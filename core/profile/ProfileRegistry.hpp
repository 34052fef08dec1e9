#pragma once
// The profiles found on the search path (ProfileSearchPath.hpp). In each folder, every
// sub-folder with a profile.yaml is a data profile and every shared library (*.so) in the folder
// or in such a sub-folder is a code plugin; a folder of the search path may itself be a profile
// folder, and an entry may name a library directly. What cannot be loaded is recorded with its
// reason, and everything else still loads: one bad plugin never hides the others.
//
// No plugin code runs in this process while the registry is discovered: each library is checked
// in a child process (PluginCheck.hpp, its verdict cached), which sends back what its entry point
// answered; a library that crashed, hung or exited there is a failure marked `faulty`. A library
// is opened in this process only when one of its cost hooks is first called (ProfileCostHooks).
#include <string>
#include <string_view>
#include <vector>

#include "profile/PluginCheck.hpp"
#include "profile/Profile.hpp"
#include "profile/ProfileSearchPath.hpp"

namespace ts {

struct ProfileFailure {
  std::string path;
  std::string problem;
  // The name the profile would most likely have had (its folder, or the library's name without
  // `lib` and `.so`), so that `profile:NAME` can say why NAME is missing.
  std::string likely_name;
  // A code plugin that crashed, hung or exited when it was checked: its code never runs in this
  // process. The programs say so on stderr (skipped_plugin_lines), not only when it is named.
  bool faulty = false;
  std::string line() const;  // `<path>: <problem>`, or the loader's own `file:line:col: ...`
};

struct LoadedProfile {
  Profile profile;
  std::string source;  // which entry of the search path it came from
};

class ProfileRegistry {
 public:
  // Code plugins are checked as `checks` says (the cache file, the timeout); the first form
  // takes them from the environment (plugin_check_options).
  static ProfileRegistry discover(const std::vector<ProfileFolder>& search_path);
  static ProfileRegistry discover(const std::vector<ProfileFolder>& search_path,
                                  const PluginCheckOptions& checks);

  const std::vector<LoadedProfile>& profiles() const { return profiles_; }
  const std::vector<ProfileFailure>& failures() const { return failures_; }
  // Profiles of a name already loaded from earlier in the search path: `<path>: ...` lines.
  const std::vector<std::string>& shadowed() const { return shadowed_; }
  const LoadedProfile* find(std::string_view name) const;
  const ProfileFailure* find_failure(std::string_view likely_name) const;
  // Comma-separated names, for messages.
  std::string names() const;
  // One line for each faulty plugin: `tilescope: plugin <path> <problem>; skipped`.
  std::vector<std::string> skipped_plugin_lines() const;
  // How many code plugins were found, loaded or not.
  size_t code_plugins_found() const { return code_plugins_found_; }

  // Loads every variant's graph; a profile with a graph that does not load moves to the
  // failures with the graph's own error line. Costs a parse per graph, so only the commands
  // that show profiles do it; a command that names one profile loads only its graph.
  void check_graphs();

 private:
  struct Found;
  void add(Profile profile, const std::string& source);
  static void find_in_folder(const ProfileFolder& folder, std::vector<Found>& found);
  void load(const Found& found, PluginChecker& checker);
  std::vector<LoadedProfile> profiles_;
  std::vector<ProfileFailure> failures_;
  std::vector<std::string> shadowed_;
  size_t code_plugins_found_ = 0;
};

// The registry of this process's search path, discovered once on first use; its
// skipped_plugin_lines are written on stderr then.
const ProfileRegistry& installed_profiles();

}  // namespace ts
