#pragma once
// The profiles found on the search path (ProfileSearchPath.hpp). In each folder, every
// sub-folder with a profile.yaml is a data profile and every shared library (*.so) in the folder
// or in such a sub-folder is a code plugin; a folder of the search path may itself be a profile
// folder, and an entry may name a library directly. What cannot be loaded is recorded with its
// reason, and everything else still loads: one bad plugin never hides the others.
#include <string>
#include <string_view>
#include <vector>

#include "profile/Profile.hpp"
#include "profile/ProfileSearchPath.hpp"

namespace ts {

struct ProfileFailure {
  std::string path;
  std::string problem;
  // The name the profile would most likely have had (its folder, or the library's name without
  // `lib` and `.so`), so that `profile:NAME` can say why NAME is missing.
  std::string likely_name;
  std::string line() const;  // `<path>: <problem>`, or the loader's own `file:line:col: ...`
};

struct LoadedProfile {
  Profile profile;
  std::string source;  // which entry of the search path it came from
};

class ProfileRegistry {
 public:
  static ProfileRegistry discover(const std::vector<ProfileFolder>& search_path);

  const std::vector<LoadedProfile>& profiles() const { return profiles_; }
  const std::vector<ProfileFailure>& failures() const { return failures_; }
  // Profiles of a name already loaded from earlier in the search path: `<path>: ...` lines.
  const std::vector<std::string>& shadowed() const { return shadowed_; }
  const LoadedProfile* find(std::string_view name) const;
  const ProfileFailure* find_failure(std::string_view likely_name) const;
  // Comma-separated names, for messages.
  std::string names() const;

  // Loads every variant's graph; a profile with a graph that does not load moves to the
  // failures with the graph's own error line. Costs a parse per graph, so only the commands
  // that show profiles do it; a command that names one profile loads only its graph.
  void check_graphs();

 private:
  void add(Profile profile, const std::string& source);
  void load_folder(const ProfileFolder& folder);
  std::vector<LoadedProfile> profiles_;
  std::vector<ProfileFailure> failures_;
  std::vector<std::string> shadowed_;
};

// The registry of this process's search path, discovered once on first use.
const ProfileRegistry& installed_profiles();

}  // namespace ts
