#pragma once
// The check of a code plugin before this process runs any of its code: a child process (fork)
// opens the library, calls its entry point and sends back what it answered (PluginAnswer). A
// library that crashes (a signal), hangs (no answer within the timeout: the child is killed),
// exits (calls exit() or _exit()) or answers with another ABI is judged there, so that it costs
// this process nothing but the one line that names it. The verdict is kept in a cache file by
// the library's path, size and modification time, so that a plugin is checked once, and again
// when it changes: $XDG_CACHE_HOME/tilescope/plugin-checks, or ~/.cache/tilescope/plugin-checks
// (written whole, atomically; when it cannot be written, every process checks again).
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "profile/CodePlugin.hpp"

namespace ts {

struct PluginCheckOptions {
  std::optional<std::filesystem::path> cache_file;  // none: no cache, every library checked
  double timeout_s = 10;                            // for each check's answer
};

// From the environment: the cache file above (none when neither XDG_CACHE_HOME nor HOME is set)
// and TILESCOPE_PLUGIN_CHECK_TIMEOUT_S (seconds, > 0; default 10).
PluginCheckOptions plugin_check_options();
// The cache file from given values (nullptr: unset), for the tests.
std::optional<std::filesystem::path> plugin_check_cache_file(const char* xdg_cache_home,
                                                             const char* home);

struct PluginVerdict {
  enum class Kind {
    usable,   // the entry point answered: `answer` (judged as a profile by the registry)
    refused,  // it answered what this tilescope does not read (ABI, no entry point, ...)
    faulty,   // crashed, hung or exited in the check: its code must not run in this process
  };
  Kind kind = Kind::refused;
  std::string problem;  // refused or faulty: e.g. "crashed (SIGSEGV) in its entry point"
  PluginAnswer answer;  // usable: hook functions are null (they live in the child)
  bool from_cache = false;
};

// Checks libraries, from the cache when it knows them unchanged; save() writes the cache back.
class PluginChecker {
 public:
  explicit PluginChecker(PluginCheckOptions options);
  // Checks every library not in the cache at once (one child each, all within one timeout), so
  // that several slow plugins cost one timeout, not one each.
  void check_all(const std::vector<std::filesystem::path>& libraries);
  // The verdict on one library (checked now when check_all did not).
  const PluginVerdict& verdict(const std::filesystem::path& library);
  // Writes the cache when a verdict was added; gives up quietly when it cannot.
  void save();

  struct CacheEntry {
    std::string size, mtime;  // the library's, when it was checked
    PluginVerdict verdict;
  };

 private:
  PluginCheckOptions options_;
  std::map<std::string, CacheEntry> cache_;       // by absolute path: the file's, and new ones
  std::map<std::string, PluginVerdict> checked_;  // by the library's path as given
  bool changed_ = false;
};

// One check in a child process, without the cache.
PluginVerdict check_plugin_in_child(const std::filesystem::path& library, double timeout_s);

}  // namespace ts
