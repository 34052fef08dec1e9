// `tilescope measure --collector host`: the host suite measured on this CPU.
#include "host/HostSuiteCollector.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/AtomicFile.hpp"
#include "common/InputError.hpp"
#include "host/HostCollector.hpp"
#include "host/MachineLoad.hpp"
#include "host/OpenBlasCore.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"
#include "plan/HostSuitePlan.hpp"
#include "profile/ArchitectureReference.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::host {
namespace {

// The mapping files of a folder, by the operator they name.
std::map<std::string, std::vector<Mapping>> load_mapping_folder(const std::string& dir) {
  if (!std::filesystem::is_directory(dir))
    throw InputError(SourceLocation{dir, 0, 0}, "--mappings expects a folder of mapping files");
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, std::vector<Mapping>> by_op;
  for (const auto& f : files) {
    Mapping m = load_mapping(f.string());
    if (m.op_name.empty())
      throw InputError(SourceLocation{f.string(), 1, 1},
                       "a measured mapping must name its operator (`operator: NAME`)");
    by_op[m.op_name].push_back(std::move(m));
  }
  return by_op;
}

// This CPU, through the host collector (collectors/host): tiled GEMMs on mappings, OpenBLAS and
// the vector kernels, timed with a wall clock around each call.
class HostSuiteCollector final : public Collector {
 public:
  std::string name() const override { return "host"; }
  std::string measures() const override {
    return "this CPU: tilescope's tiled GEMM on mappings, OpenBLAS, vector kernels (docs/host.md)";
  }
  std::vector<TimingScope> scopes() const override { return {TimingScope::host_call}; }
  std::vector<std::string> implementations() const override {
    std::vector<std::string> out;
    for (HostKernel k : {HostKernel::tiled, HostKernel::openblas, HostKernel::vector})
      out.emplace_back(to_string(k));
    return out;
  }

  int measure(const MeasureRequest& request, CollectorSession& session) const override {
    if (request.db_path.empty())
      throw InputError(SourceLocation{"--db", 0, 0},
                       "measure --collector host needs --db FILE, the results database");
    MeasureRequest a = request;
    if (a.mappings_per_gemm == 0) a.mappings_per_gemm = 8;
    if (a.repetitions == 0) a.repetitions = 7;
    if (a.arch_file.empty()) a.arch_file = kHostGraphFile;
    a.arch_file = resolve_architecture_option(a.arch_file);
    if (!std::filesystem::exists(a.arch_file))
      throw InputError(SourceLocation{a.arch_file, 0, 0},
                       "no such architecture graph; `tilescope calibrate host --out " +
                           a.arch_file + "` writes one for this machine");
    const ArchitectureGraph graph = load_architecture(a.arch_file);
    const Workload workload = load_workload(a.workload_file);

    HostSuiteOptions plan;
    plan.mappings_per_gemm = a.mappings_per_gemm;
    plan.seed = a.seed;
    plan.mapper.budget = a.mapper_budget;
    plan.openblas = a.openblas;
    if (!a.mappings_dir.empty()) plan.given_mappings = load_mapping_folder(a.mappings_dir);
    const HostSuite suite =
        host_suite(workload, graph, plan, [&](size_t i, size_t count, const Operator& op) {
          session.progress({CollectorProgress::Stage::planning, i + 1, count, op.name});
        });
    session.progress({CollectorProgress::Stage::planning, 0, 0, ""});
    for (const std::string& note : suite.notes) std::cerr << "note: " << note << "\n";
    std::vector<HostJob> jobs;
    std::vector<std::pair<std::string, std::string>> saved;  // written together, or none
    for (const SuiteEntry& e : suite.entries) {
      if (e.program && !a.save_mappings_dir.empty())
        saved.emplace_back(
            (std::filesystem::path(a.save_mappings_dir) /
             (safe_file_name(e.mapping->name) + ".yaml"))
                .string(),
            mapping_yaml(*e.program, e.mapping->name,
                         fmt::format("{} on {}: {}", e.op.name, graph.name, e.op.shape_text())));
      jobs.push_back(host_job(e));
    }
    if (!saved.empty()) {
      std::filesystem::create_directories(a.save_mappings_dir);
      write_files_atomically(saved);
    }
    // Mixed order, fixed seed: the repetitions of a group interleave different operators.
    std::shuffle(jobs.begin(), jobs.end(), std::mt19937_64(a.seed));

    if (auto parent = std::filesystem::path(a.db_path).parent_path(); !parent.empty())
      std::filesystem::create_directories(parent);
    ResultStore store(a.db_path, ResultStore::Mode::read_write);
    for (const SuiteEntry& e : suite.entries) store.add_prediction(e.prediction);

    HostCollectorOptions options;
    options.repetitions = a.repetitions;
    if (a.max_repetitions > 0) options.max_repetitions = a.max_repetitions;
    if (a.tolerance > 0) options.tolerance = a.tolerance;
    options.max_repetitions = std::max(options.max_repetitions, options.repetitions);
    options.threads = a.threads;
    options.group_size = a.group_size;
    options.flush_caches = a.flush_caches;
    options.seed = a.seed;

    RunStart start;
    start.collector = name();
    start.workload = workload.name;
    start.tool_version = a.tool_version;
    RunSettings settings;
    settings.command = a.command_line;
    settings.workload_file = a.workload_file;
    settings.arch_file = a.arch_file;
    settings.arch_hash = hash_text(graph.content_hash());
    settings.repetitions = options.repetitions;
    settings.max_repetitions = options.max_repetitions;
    settings.tolerance = options.tolerance;
    settings.warmup = options.warmup;
    settings.threads = options.threads;
    settings.group_size = options.group_size;
    settings.flush_caches = options.flush_caches;
    settings.seed = a.seed;
    settings.mappings = a.mappings_dir.empty() ? std::string("generated") : a.mappings_dir;
    settings.mappings_per_gemm = a.mappings_per_gemm;
    settings.mapper_budget = a.mapper_budget;
    start.settings_json = run_settings_json(settings);
    start.device.name = graph.name;
    start.device.kind = "host-cpu";
    start.device.arch_hash = hash_text(graph.content_hash());
    const OpenBlasCore blas = openblas_core();
    if (!blas.advice.empty() && a.openblas) session.warn("warning: " + blas.advice);
    start.device.properties_json = nlohmann::json{
        {"description", graph.description},
        {"arch_file", a.arch_file},
        {"openblas_core", blas.name},
        {"openblas_config",
         blas.config}}.dump();
    const int64_t run = store.begin_run(start);

    if (const auto others = other_cores_over(0.25); others && *others > options.busy_cores)
      session.warn(
          fmt::format("warning: the machine is busy: other processes use {:.1f} of its "
                      "{} cores; points measured meanwhile are marked unstable",
                      *others, online_cpus()));
    size_t unchecked = 0, unpinned = 0, busy = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const size_t delivered = run_host_jobs(
        jobs, options,
        [&](const Measurement& m) {
          if (!m.checked) ++unchecked;
          if (m.instability == Instability::machine_busy)
            ++busy;
          else if (m.instability != Instability::none)
            ++unpinned;
          store.add_measurement(run, m);
        },
        [&](const HostProgress& p) {
          session.progress({CollectorProgress::Stage::measuring, p.done, p.total, p.current});
        },
        session.cancel);
    session.progress({CollectorProgress::Stage::measuring, 0, 0, ""});
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const bool stopped = session.cancel && session.cancel->load();
    store.finish_run(run, stopped ? RunStatus::cancelled : RunStatus::complete);
    session.warn(fmt::format("run {}: {} of {} measurements in {:.1f} s{} -> {}", run, delivered,
                             jobs.size(), seconds,
                             stopped ? " (stopped: run marked cancelled)" : "", a.db_path));
    if (busy + unpinned > 0)
      session.warn(fmt::format(
          "warning: {} of {} measurements are unstable ({} measured while other processes were "
          "busy, {} with a median not within +-{:.1f} % after at most {} repetitions or {:.1f} "
          "s); correlate and report count them, and --exclude-unstable leaves them out",
          busy + unpinned, delivered, busy, unpinned, 100 * options.tolerance,
          options.max_repetitions, options.seconds_per_point));
    if (unchecked > 0)
      session.warn(
          fmt::format("warning: {} measurements disagree with their reference "
                      "implementation (stored with checked = 0; correlate skips them)",
                      unchecked));
    return stopped ? 130 : 0;
  }
};

}  // namespace

std::unique_ptr<Collector> make_host_suite_collector() {
  return std::make_unique<HostSuiteCollector>();
}

}  // namespace ts::host
