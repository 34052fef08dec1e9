// `tilescope calibrate host [--out FILE] [--runs N]`: measures this machine and writes it as an
// architecture graph with its mapping templates (docs/host.md). One subcommand per kind of
// device, so that other sources (a GPU runner) can sit beside `host` later.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "Commands.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "calibrate/GpuCalibration.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"
#include "host/CalibrationOutput.hpp"
#include "host/HostCalibration.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/ProfileManifest.hpp"
#include "profile/ProfileManifestWriter.hpp"
#include "profile/ProfileSearchPath.hpp"

namespace ts::cli {
namespace {

struct CalibrateHostArgs {
  std::string out = "out/host.yaml";
  bool register_profile = false;
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

// Where --register puts this machine: the user's profile folder, so that profile:host names it
// from any working folder. Fails before anything is measured when there is none.
std::filesystem::path host_profile_folder() {
  const std::optional<std::filesystem::path> user = user_profile_folder();
  if (!user)
    throw InputError(SourceLocation{"--register", 0, 0},
                     "no user profile folder: set XDG_DATA_HOME or HOME");
  return *user / "host";
}

// profile:host with this machine as its default variant and the bundled reference beside it
// (the user's profile of a name shadows the bundled one, so the reference must come along).
// The graph and its templates are copies in the profile's folder: out/ may be cleaned.
void register_host_profile(host::HostCalibration& cal, const std::string& command) {
  const std::filesystem::path folder = host_profile_folder();
  const std::string graph = (folder / "this-machine.yaml").string();
  check_writable(graph);
  const host::CalibrationFiles files = host::write_host_calibration(cal, graph, command);
  load_architecture(files.graph);
  Profile p;
  p.name = "host";
  p.profile_version = "1.0.0";
  p.description = "the host CPU: this machine (" + cal.cpu_name + ") as calibrated on " + cal.when;
  p.variants.push_back({"this-machine", files.graph, true,
                        "measured by `" + command + "` on " + cal.cpu_name + ", " + cal.when +
                            "; every figure and its spread is in the graph's header"});
  if (const auto data = data_directory())
    if (std::filesystem::is_regular_file(*data / "plugins" / "host" / "profile.yaml"))
      for (ProfileVariant v :
           load_profile_manifest((*data / "plugins" / "host" / "profile.yaml").string()).variants)
        if (v.name != "this-machine") p.variants.push_back(std::move(v));
  p.default_variant = "this-machine";
  p.mapping_templates = {files.gemm_template, files.vector_template};
  const std::string manifest = (folder / "profile.yaml").string();
  write_profile_manifest(p, manifest);
  load_profile_manifest(manifest);  // what was written must read back
  std::cout << fmt::format("registered as profile:host/this-machine ({})\n", manifest);
}

int run_calibrate_host(const CalibrateHostArgs& a) {
  if (a.register_profile) host_profile_folder();  // before the measurement, not after
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
  if (a.register_profile) register_host_profile(cal, command);
  return 0;
}

struct CalibrateGpuArgs {
  std::string from_runner, out;
  TensorPeak peak = TensorPeak::wgmma;
  std::string base = "samples/arch/nvidia-h200.yaml";  // bundled_file(): local, else data folder
};

// `tilescope calibrate --from-runner results.jsonl --out FILE [--base GRAPH]`: the runner's
// calibration records (docs/cupti.md) put into the base graph's datasheet figures.
int run_calibrate_gpu(const CalibrateGpuArgs& a) {
  if (a.out.empty())
    throw InputError(SourceLocation{"--out", 0, 0},
                     "--from-runner needs --out FILE, the graph to write");
  const RunnerResults results = read_runner_results(a.from_runner);
  const std::string base = is_profile_reference(a.base)
                               ? resolve_architecture_option(a.base, "--base")
                               : bundled_file(a.base).string();
  const GpuCalibration cal = calibrate_gpu_graph(results, load_architecture(base), a.base, a.peak);
  check_writable(a.out);
  std::string header;
  for (const std::string& line : cal.comment_lines) header += line + "\n";
  header += "Written by: " + command_line();
  write_architecture(cal.graph, header, a.out);
  load_architecture(a.out);  // what was written must read back
  for (const std::string& m : cal.measured) std::cout << "measured: " << m << "\n";
  std::cout << fmt::format("wrote {} ({} figures measured, the rest from {})\n", a.out,
                           cal.measured.size(), a.base);
  return 0;
}

}  // namespace

CommandAction add_calibrate(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("calibrate",
                         "Measure a device and write it as an architecture graph (docs/host.md); "
                         "--from-runner turns a GPU runner's calibration into one (docs/cupti.md)");
  cmd->require_subcommand(0, 1);
  auto gpu_args = std::make_shared<CalibrateGpuArgs>();
  cmd->add_option("--from-runner", gpu_args->from_runner,
                  "results of `tilescope-cupti-runner --calibrate` (JSON lines)");
  cmd->add_option("--out", gpu_args->out, "with --from-runner: the graph to write");
  cmd->add_option("--base", gpu_args->base,
                  "with --from-runner: the graph whose datasheet figures are kept where "
                  "nothing was measured (a file or profile:NAME[/VARIANT])")
      ->capture_default_str();
  cmd->add_option("--tensor-peak", gpu_args->peak,
                  "with --from-runner: the tensor-core rate to put in: wgmma (cuBLAS's, the "
                  "default), mma-sync (warp-level mma.sync's peak) or wmma-kernel (what "
                  "tilescope's own WMMA GEMM kernel reaches on a large GEMM)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, TensorPeak>{{"wgmma", TensorPeak::wgmma},
                                            {"mma-sync", TensorPeak::mma_sync},
                                            {"wmma-kernel", TensorPeak::wmma_kernel}},
          CLI::ignore_case));

  auto host_args = std::make_shared<CalibrateHostArgs>();
  CLI::App* host = cmd->add_subcommand(
      "host",
      "This machine's CPU: hwloc topology and microbenchmarks (clock, vector FMA, exp, "
      "division and square root, cache and DRAM bandwidth, parallel-region start)");
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
  host->add_flag("--register", host_args->register_profile,
                 "also add this machine to the user's profiles as profile:host/this-machine "
                 "($XDG_DATA_HOME/tilescope/plugins/host; the bundled reference stays beside it)");

  return [host, host_args, gpu_args] {
    if (host->parsed()) return run_calibrate_host(*host_args);
    if (!gpu_args->from_runner.empty()) return run_calibrate_gpu(*gpu_args);
    throw InputError(SourceLocation{"calibrate", 0, 0},
                     "expected `calibrate host` or `calibrate --from-runner FILE --out FILE`");
  };
}

}  // namespace ts::cli
