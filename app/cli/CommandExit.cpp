// How a tilescope program turns a command's failure into an exit status (CommandExit.hpp).
#include "CommandExit.hpp"

#include <yaml-cpp/exceptions.h>

#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <string_view>

#include "common/InputError.hpp"
#include "common/WorkLabel.hpp"

namespace ts::cli {
namespace {

// `PATH: cannot create directories: Not a directory` from libstdc++'s
// `filesystem error: cannot create directories: Not a directory [PATH]`: the path first, as
// every other error of the CLI names its file.
std::string filesystem_error_line(const std::filesystem::filesystem_error& e) {
  std::string what = e.what();
  constexpr std::string_view kPrefix = "filesystem error: ";
  if (std::string_view(what).starts_with(kPrefix)) what.erase(0, kPrefix.size());
  if (const size_t paths = what.find(" ["); paths != std::string::npos) what.erase(paths);
  std::string line = e.path1().empty() ? std::string("error") : e.path1().string();
  if (!e.path2().empty()) line += " -> " + e.path2().string();
  return line + ": " + what;
}

}  // namespace

int exit_status_of(const std::function<int()>& run) {
  take_failed_work();
  try {
    return run();
  } catch (const std::bad_alloc&) {
    // The input asked for more than the machine has (a grid, a timeline, a file): the user's to
    // change, so exit 2 like any other input at fault, naming what was being built.
    const std::string what = take_failed_work();
    std::cerr << "error: out of memory"
              << (what.empty() ? std::string() : " while building " + what)
              << "; the inputs ask for more memory than this machine has\n";
    return 2;
  } catch (const InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const YAML::Exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    // An output folder that cannot be made, a file that cannot be renamed into place: the
    // path the user named is at fault (a file where a folder should be, no permission).
    std::cerr << filesystem_error_line(e) << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ts::cli
