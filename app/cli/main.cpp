// tilescope: the headless face of the engine.
#include <unistd.h>
#include <yaml-cpp/exceptions.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string_view>

#include "Commands.hpp"
#include "ReportForward.hpp"
#include "common/InputError.hpp"
#include "host/OpenBlasCore.hpp"
#include "profile/ProfileCostHooks.hpp"

int main(int argc, char** argv) {
  // A file size limit (ulimit -f) would kill us mid-write; ignored, the write fails with EFBIG
  // and the atomic writer reports it and leaves nothing half-written, as for a full disk.
  std::signal(SIGXFSZ, SIG_IGN);
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
  CLI::App app{
      "tilescope: predict, measure and compare deep-learning operators on architecture graphs"};
  app.set_version_flag("--version", std::string("tilescope ") + TILESCOPE_VERSION);
  app.require_subcommand(1);
  std::map<CLI::App*, ts::cli::CommandAction> actions;
  auto reg = [&](ts::cli::CommandAction (*add)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    ts::cli::CommandAction r = add(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) actions[subs.back()] = std::move(r);
  };
  reg(&ts::cli::add_predict);
  reg(&ts::cli::add_compare);
  reg(&ts::cli::add_validate);
  reg(&ts::cli::add_bench);
  reg(&ts::cli::add_calibrate);
  reg(&ts::cli::add_measure);
  reg(&ts::cli::add_correlate);
  reg(&ts::cli::add_fit);
  reg(&ts::cli::add_db);
  reg(&ts::cli::add_simulate);
  reg(&ts::cli::add_validate_dist);
  reg(&ts::cli::add_import);
  reg(&ts::cli::add_report);
  reg(&ts::cli::add_profiles);
  reg(&ts::cli::add_sweep);
  return ts::cli::parse_and_run(app, argc, argv, [&] {
    for (auto& [sub, run] : actions)
      if (sub->parsed()) return run();
    return 0;
  });
}
