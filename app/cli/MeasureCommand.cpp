// `tilescope measure`: run a suite's operators on a collector, store every measurement with the
// prediction for the same operator and mapping, so that `correlate` can join them.
#include "MeasureCommand.hpp"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <iostream>

#include "CommandLine.hpp"
#include "TerminalProgress.hpp"
#include "host/HostSuiteCollector.hpp"
#include "mapper/Mapper.hpp"
#include "measure/Collector.hpp"
#include "runner/CuptiRunnerCollector.hpp"

namespace ts::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) { g_stop.store(true); }

// A collector's progress on the terminal: the planning line, then the bar of jobs measured.
void show_progress(TerminalProgress& progress, const CollectorProgress& p) {
  if (p.total == 0) return progress.clear();
  if (p.stage == CollectorProgress::Stage::planning)
    return progress.show_count(p.done, p.total,
                               fmt::format("predicting {}/{}: {}", p.done, p.total, p.current));
  progress.show_bar(p.done, p.total, fmt::format("operators  {}", p.current));
}

}  // namespace

MeasureOptions::MeasureOptions() {
  request.arch_file = host::kHostGraphFile;
  request.kernel_template_file = runner::kDefaultKernelTemplate;
  request.mapper_budget = MapperOptions{}.budget;
}

int run_measure(const MeasureOptions& args) {
  const Collector& collector = collectors().get(args.collector, "--collector");
  MeasureRequest request = args.request;
  request.flush_caches = !args.no_flush;
  request.openblas = !args.no_openblas;
  request.command_line = command_line();
  request.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;

  TerminalProgress bar("measure");
  CollectorSession session;
  session.print = [](const std::string& line) { std::cout << line << "\n"; };
  session.warn = [&](const std::string& line) {
    bar.clear();
    std::cerr << line << "\n";
  };
  session.progress = [&](const CollectorProgress& p) { show_progress(bar, p); };
  session.cancel = &g_stop;

  // Ctrl-C asks the collector to stop between repetitions; what it measured so far is kept.
  g_stop.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  struct RestoreSignals {
    struct sigaction int_, term_;
    ~RestoreSignals() {
      sigaction(SIGINT, &int_, nullptr);
      sigaction(SIGTERM, &term_, nullptr);
    }
  } restore{old_int, old_term};
  const int status = collector.measure(request, session);
  bar.clear();
  return status;
}

}  // namespace ts::cli
