// `tilescope calibrate host [--out FILE] [--runs N]`: measures this machine and writes it as an
// architecture graph with its mapping templates (docs/host.md). One subcommand per kind of
// device, so that other sources (a GPU runner) can sit beside `host` later.
#include "CalibrateCommand.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "CommandLine.hpp"
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

int run_calibrate_host(const CalibrateHostOptions& a) {
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

// `tilescope calibrate --from-runner results.jsonl --out FILE [--base GRAPH]`: the runner's
// calibration records (docs/cupti.md) put into the base graph's datasheet figures.
int run_calibrate_gpu(const CalibrateGpuOptions& a) {
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

int run_calibrate(const CalibrateOptions& options) {
  if (options.host_chosen) return run_calibrate_host(options.host);
  if (!options.gpu.from_runner.empty()) return run_calibrate_gpu(options.gpu);
  throw InputError(SourceLocation{"calibrate", 0, 0},
                   "expected `calibrate host` or `calibrate --from-runner FILE --out FILE`");
}

}  // namespace ts::cli
