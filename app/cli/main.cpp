// tilescope: the headless face of the engine.
#include <unistd.h>
#include <yaml-cpp/exceptions.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string_view>

#include "CommandLine.hpp"
#include "CommandLineGrammar.hpp"
#include "ReportForward.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"
#include "host/OpenBlasCore.hpp"
#include "profile/ProfileCostHooks.hpp"

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) would kill us mid-write; ignored, the write fails with EFBIG
  // and the atomic writer reports it and leaves nothing half-written, as for a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    ts::check_data_environment();  // a wrong TILESCOPE_DATA is an error, not an empty install
  } catch (const ts::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  ts::provide_cost_hooks_from_profiles();  // graphs may name code plugins' cost hooks
  // The report draws with Qt, which tilescope does not link: tilescope-report makes it.
  if (argc > 1 && std::string_view(argv[1]) == "report")
    return ts::cli::exec_report({argv + 2, argv + argc});
  // OpenBLAS picks its kernels when it loads, from the CPU model and OPENBLAS_CORETYPE alone; a
  // release older than this CPU falls back to SSE kernels. Start again once with the right
  // coretype so that OpenBLAS is measured at what it can do here (the run records the core).
  if (!std::getenv("OPENBLAS_CORETYPE")) {
    const ts::host::OpenBlasCore core = ts::host::openblas_core();
    if (core.below_cpu && !core.suggested_coretype.empty()) {
      ::setenv("OPENBLAS_CORETYPE", core.suggested_coretype.c_str(), 1);
      ::execv("/proc/self/exe", argv);  // on failure, carry on with what OpenBLAS chose
    }
  }
  ts::cli::set_command_line(argc, argv);
  return ts::cli::run_command_line(argc, argv);
}
