#pragma once
// Code plugins: shared libraries exporting the entry point of PluginAbi.h. A plugin's code runs
// in this process only when it is needed: the registry learns what a library describes from a
// check in a child process (PluginCheck.hpp), and a library is opened here (dlopen, kept open
// for the life of the process: what it returns is static data) when one of its cost hooks is
// first called, or when load_code_plugin is asked for it.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "arch/ComputeCostHook.h"
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

// What a plugin's entry point answered, copied out of the library as plain data: what the child
// process of a check sends back and the check cache keeps. Not yet judged as a profile (names,
// graph files): profile_from_answer does that.
struct PluginAnswer {
  struct Variant {
    std::string name;
    std::string arch_file;  // as the plugin wrote it: relative to the library's folder
    bool fitted = false;
    std::string provenance;
  };
  struct Hook {
    std::string name;
    // Only in the process that called the entry point: null in an answer from a check.
    TilescopeComputeSeconds seconds = nullptr;
    const void* user = nullptr;
  };
  uint32_t abi_version = 0;
  std::string name;
  std::string version;
  std::string description;
  std::optional<std::string> default_variant;  // none: the first variant
  std::vector<Variant> variants;
  std::vector<Hook> cost_hooks;
};

// The steps of loading, for the check's child process, which must say where a library faulted
// and cannot rely on exceptions: each returns its problem, or "" when it went well.
// dlopen (the library's static constructors run here).
std::string open_plugin_library(const std::string& path, void** handle);
// Finds and calls the entry point, and checks the ABI version it wrote.
std::string call_plugin_entry_point(const std::string& path, void* handle, const void** raw,
                                    uint32_t* abi_version);
// Copies the answer of a version already checked: the ABI's structure checks (at least one
// variant, hooks counted and listed, each with a function).
std::string read_plugin_answer(const void* raw, uint32_t abi_version, PluginAnswer* answer);

// The profile an answer describes, judged here (names, each variant's graph file beside the
// library, the default variant, the hooks' names): throws ProfileLoadError. Registers nothing.
Profile profile_from_answer(const std::filesystem::path& library, const PluginAnswer& answer);

// Opens the library in this process, calls its entry point and registers its cost hooks with
// their functions. Throws ProfileLoadError when the file is not a loadable shared object,
// exports no entry point, was built for another ABI version (checked before any field of its
// answer is read), or describes a profile that is not usable (no variants, a bad name, a missing
// graph file, a hook whose name another library provides): then no hook is registered.
Profile load_code_plugin(const std::filesystem::path& library);

// Opens the library in this process (once) and registers its hooks' functions, for the first
// call of one of its hooks: the profile's own files are not judged again.
void load_plugin_cost_hooks(const std::string& library);

}  // namespace ts
