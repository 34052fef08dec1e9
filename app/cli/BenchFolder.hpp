#pragma once
// A private temporary folder for one bench (its databases, graphs and captured output), made
// with mkdtemp so that two benches at once never share one, and removed with what it holds when
// the bench returns or throws.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace ts::cli {

class BenchFolder {
 public:
  // `stem` names the bench: "tilescope-bench-STEM-XXXXXX" in the system's temporary folder.
  explicit BenchFolder(const std::string& stem) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / ("tilescope-bench-" + stem + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
      throw std::runtime_error("cannot make a temporary folder for the bench");
    path_ = pattern;
  }
  ~BenchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  BenchFolder(const BenchFolder&) = delete;
  BenchFolder& operator=(const BenchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace ts::cli
