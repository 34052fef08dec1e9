#pragma once
// Where tilescope's bundled data (samples/, plugins/) is, found when the program runs and never
// through a path compiled into it, so that a built or installed tilescope can be moved:
//   1. $TILESCOPE_DATA, when it is set (it must then hold samples/);
//   2. share/tilescope beside or above the running binary: <prefix>/bin/tilescope finds
//      <prefix>/share/tilescope; a build tree mirrors that layout with links into the source tree
//      (build/share/tilescope/samples -> <source>/samples), so build/app/tilescope finds it too.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ts {

// The folder that holds samples/, or nothing when none was found.
std::optional<std::filesystem::path> data_directory();

// Throws InputError (located at TILESCOPE_DATA) when TILESCOPE_DATA is set and holds no
// samples/: a wrong explicit choice is an error before any command runs, not a program that
// quietly finds no profiles and no bundled files. Nothing when it is unset or right.
void check_data_environment();

// The data folder. Throws std::runtime_error naming the places it looked when there is none.
std::filesystem::path required_data_directory();

// A bundled file named by its path in the source tree's layout (samples/...): that path from the
// working folder when it exists there (a checkout, or a user's copy of samples/), else the same
// path inside the data folder when it is there, else the path as given (for the error). Throws
// as required_data_directory() does when there is no data folder. Used for
// commands' defaults, so their help shows a short path.
std::filesystem::path bundled_file(std::string_view relative);

// The running binary (/proc/self/exe), or nothing where the system does not say.
std::optional<std::filesystem::path> executable_path();

// The same search as data_directory(), from a given binary and environment value; the test seam.
std::optional<std::filesystem::path> find_data_directory(const std::filesystem::path& executable,
                                                         const char* environment_value);

}  // namespace ts
