// `tilescope calibrate host [--out FILE] [--runs N]`: measures this machine and writes it as an
// architecture graph with its mapping templates (docs/host.md). One subcommand per kind of
// device, so that other sources (a GPU runner) can sit beside `host` later.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "Commands.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "host/CalibrationOutput.hpp"
#include "host/HostCalibration.hpp"

namespace ts::cli {
namespace {

struct CalibrateHostArgs {
  std::string out = "out/host.yaml";
  int runs = 3;
  double seconds = host::HostCalibrationOptions{}.seconds_per_test;
};

void print_table(const host::HostCalibration& cal) {
  size_t width = 6;
  for (const auto& f : cal.figures) width = std::max(width, f.name.size());
  std::cout << fmt::format("{:<{}}  {:>10}  {:<9}  {:>7}\n", "figure", width, "median", "unit",
                           "spread");
  for (const auto& f : cal.figures)
    std::cout << fmt::format("{:<{}}  {:>10.4g}  {:<9}  {:>6.1f}%\n", f.name, width, f.value,
                             f.unit, f.spread * 100);
}

// Fails before anything is measured when the output cannot be written: a calibration takes
// seconds, and its result would be lost.
void check_writable(const std::string& out) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(out).parent_path();
  std::error_code ec;
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec)
    throw InputError(SourceLocation{out, 0, 0},
                     fmt::format("cannot create folder '{}': {}", dir.string(), ec.message()));
  const std::string probe = out + ".tmp";
  if (!std::ofstream(probe))
    throw InputError(SourceLocation{out, 0, 0},
                     fmt::format("cannot write '{}': {}", probe, std::strerror(errno)));
  fs::remove(probe, ec);
}

int run_calibrate_host(const CalibrateHostArgs& a) {
  check_writable(a.out);
  std::string command = fmt::format("tilescope calibrate host --out {} --runs {}", a.out, a.runs);
  if (a.seconds != host::HostCalibrationOptions{}.seconds_per_test)
    command += fmt::format(" --seconds {}", a.seconds);
  host::HostCalibrationOptions options;
  options.runs = a.runs;
  options.seconds_per_test = a.seconds;
  host::HostCalibration cal = host::calibrate_host(options, [](const std::string& line) {
    std::cerr << line << "\n" << std::flush;
  });
  const host::CalibrationFiles files = host::write_host_calibration(cal, a.out, command);
  // What was written must read back: a graph that does not load is worse than none.
  load_architecture(files.graph);

  const size_t runs = cal.figures.empty() ? 0 : cal.figures.front().runs.size();
  std::cout << fmt::format("{} ({} cores), {}: median of {} run{} per figure\n", cal.cpu_name,
                           cal.graph.node(*cal.graph.find_node("Core")).instances, cal.when, runs,
                           runs == 1 ? "" : "s");
  print_table(cal);
  std::cout << fmt::format("repeated runs agree within {:.1f} % (largest spread)\n",
                           cal.max_spread * 100);
  std::cout << fmt::format("wrote {} with its templates {} and {}\n", files.graph,
                           files.gemm_template, files.vector_template);
  return 0;
}

}  // namespace

Runner add_calibrate(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure a device and write it as an architecture graph (see docs/host.md)");
  cmd->require_subcommand(1);

  auto host_args = std::make_shared<CalibrateHostArgs>();
  CLI::App* host = cmd->add_subcommand(
      "host",
      "This machine's CPU: hwloc topology and microbenchmarks (clock, vector FMA, cache "
      "and DRAM bandwidth, parallel-region start)");
  host->add_option("--out", host_args->out,
                   "graph to write; its templates go beside it as <stem>-gemm-template.yaml and "
                   "<stem>-vector-template.yaml")
      ->capture_default_str();
  host->add_option("--runs", host_args->runs, "independent runs of every microbenchmark")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  host->add_option("--seconds", host_args->seconds,
                   "timed seconds per run of each microbenchmark (at least one pass over its "
                   "working set)")
      ->check(CLI::Range(1e-4, 60.0))
      ->capture_default_str();

  return [host, host_args] {
    if (host->parsed()) return run_calibrate_host(*host_args);
    return 2;  // unreachable: a subcommand is required
  };
}

}  // namespace ts::cli
