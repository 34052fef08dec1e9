// `tilescope report`: listed among the commands, run by tilescope-report (see ReportForward.hpp).
#include "ReportForward.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace ts::cli {

int exec_report(const std::vector<std::string>& args) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::string program = (self.parent_path() / "tilescope-report").string();
  std::vector<std::string> owned{program, "report"};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : owned) argv.push_back(word.data());
  argv.push_back(nullptr);
  if (!error) ::execv(program.c_str(), argv.data());
  std::cerr << fmt::format(
      "error: `tilescope report` runs {}, which cannot be started ({}); build or install it "
      "beside tilescope\n",
      program, std::strerror(error ? error.value() : errno));
  return 2;
}

}  // namespace ts::cli
