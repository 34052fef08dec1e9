#pragma once
// Loads a code plugin: a shared library exporting the entry point of PluginAbi.h. The library is
// opened with dlopen and kept open for the life of the process (what it returns is static data).
#include <filesystem>
#include <stdexcept>
#include <string>

#include "profile/Profile.hpp"

namespace ts {

// A plugin or profile that cannot be loaded: what() is one line, `<path>: <problem>`.
class ProfileLoadError : public std::runtime_error {
 public:
  ProfileLoadError(const std::string& path, const std::string& problem);
  const std::string& path() const { return path_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string path_;
  std::string problem_;
};

// Throws ProfileLoadError when the file is not a loadable shared object, exports no entry point,
// was built for another ABI version (checked before any field of its answer is read), or
// describes a profile that is not usable (no variants, a bad name, a missing graph file).
Profile load_code_plugin(const std::filesystem::path& library);

}  // namespace ts
