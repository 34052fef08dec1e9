#include "DataDirectory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include "common/InputError.hpp"

namespace ts {
namespace fs = std::filesystem;

namespace {

bool holds_samples(const fs::path& folder) {
  std::error_code ec;
  return fs::is_directory(folder / "samples", ec);
}

// bin/ is one level below the prefix; a build tree's binaries sit one or two levels below the
// build folder (build/app/tilescope, build/app/gui/tilescope-gui, build/tests/...).
constexpr int kLevelsAboveBinary = 3;

}  // namespace

std::optional<fs::path> find_data_directory(const fs::path& executable,
                                            const char* environment_value) {
  if (environment_value != nullptr && *environment_value != '\0') {
    fs::path chosen(environment_value);
    if (holds_samples(chosen)) return chosen;
    return std::nullopt;  // an explicit choice that is wrong is not silently replaced
  }
  fs::path folder = executable.parent_path();
  for (int level = 0; level <= kLevelsAboveBinary && !folder.empty(); ++level) {
    fs::path candidate = folder / "share" / "tilescope";
    if (holds_samples(candidate)) return candidate;
    if (folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

std::optional<fs::path> executable_path() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  return exe;
}

std::optional<fs::path> data_directory() {
  static const std::optional<fs::path> found = [] {
    const char* env = std::getenv("TILESCOPE_DATA");
    auto exe = executable_path();
    return find_data_directory(exe ? *exe : fs::path(), env);
  }();
  return found;
}

void check_data_environment() {
  const char* env = std::getenv("TILESCOPE_DATA");
  if (env == nullptr || *env == '\0' || holds_samples(fs::path(env))) return;
  throw InputError({"TILESCOPE_DATA", 0, 0},
                   fmt::format("'{}' holds no samples/ folder; expected the folder that holds "
                               "tilescope's samples/ (docs/install.md), or unset it",
                               env));
}

fs::path required_data_directory() {
  if (auto root = data_directory()) return *root;
  const char* env = std::getenv("TILESCOPE_DATA");
  if (env != nullptr && *env != '\0')
    throw std::runtime_error(
        fmt::format("TILESCOPE_DATA is '{}', which holds no samples/ folder", env));
  auto exe = executable_path();
  throw std::runtime_error(
      fmt::format("cannot find tilescope's data: no share/tilescope/samples beside or above {}; "
                  "set TILESCOPE_DATA to the folder that holds samples/",
                  exe ? exe->string() : std::string("the binary")));
}

fs::path bundled_file(std::string_view relative) {
  fs::path local(relative);
  std::error_code ec;
  if (fs::exists(local, ec)) return local;
  // Neither here nor there: the path as given, so that the error names what the user wrote.
  // With no data folder at all, say so rather than "file not found".
  const fs::path root = required_data_directory();
  if (fs::exists(root / local, ec)) return root / local;
  return local;
}

}  // namespace ts
