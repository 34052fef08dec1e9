// `tilescope measure`: run a suite's operators on a collector, store every measurement with the
// prediction for the same operator and mapping, so that `correlate` can join them.
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "Commands.hpp"
#include "TerminalProgress.hpp"
#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/AtomicFile.hpp"
#include "common/DataDirectory.hpp"
#include "host/HostCollector.hpp"
#include "host/MachineLoad.hpp"
#include "host/OpenBlasCore.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/Collector.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"
#include "plan/HostSuitePlan.hpp"
#include "plan/MeasurementPlan.hpp"
#include "profile/ArchitectureReference.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/Importer.hpp"
#include "trace/RunnerResults.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) { g_stop.store(true); }

constexpr const char* kHostArch = "out/host.yaml";
// Resolved by bundled_file(): from the working folder, else from tilescope's data folder.
constexpr const char* kDefaultKernelTemplate = "samples/mappings/nvidia-wmma-kernel-template.yaml";

// The options of `tilescope measure`; flags that turn a default off are kept as typed.
struct MeasureArgs {
  std::string collector = "host";
  MeasureRequest request;
  bool no_flush = false, no_openblas = false;

  MeasureArgs() {
    request.arch_file = kHostArch;
    request.kernel_template_file = kDefaultKernelTemplate;
    request.mapper_budget = MapperOptions{}.budget;
  }
};

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

// A collector's progress on the terminal: the planning line, then the repetitions bar.
void show_progress(TerminalProgress& progress, const CollectorProgress& p) {
  if (p.total == 0) return progress.clear();
  if (p.stage == CollectorProgress::Stage::planning)
    return progress.show_count(p.done, p.total,
                               fmt::format("predicting {}/{}: {}", p.done, p.total, p.current));
  progress.show_bar(p.done, p.total, fmt::format("repetitions  {}", p.current));
}

// In a folder made on demand; whole or not at all, so that a failure leaves no half plan.
void write_text_file(const std::string& path, const std::string& text) {
  if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  write_file_atomically(path, text);
}

// The runner beside this binary (the build puts it there), unless --runner names one.
std::string find_runner(const std::string& given) {
  if (!given.empty()) {
    if (!std::filesystem::exists(given))
      throw InputError(SourceLocation{given, 0, 0}, "no such runner (--runner)");
    return given;
  }
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  const auto beside = self.parent_path() / "tilescope-cupti-runner";
  if (ec || !std::filesystem::exists(beside))
    throw InputError(SourceLocation{"--runner", 0, 0},
                     "no tilescope-cupti-runner beside tilescope (built where the CUDA toolkit "
                     "is found); give its path with --runner, or write a plan with --plan and "
                     "run it on the GPU machine (docs/cupti.md)");
  return beside.string();
}

// Runs the runner with the terminal's stderr (its progress and its one-line errors).
int run_runner(const std::string& runner, const std::string& plan, const std::string& results) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("cannot start the runner: fork failed");
  if (pid == 0) {
    execl(runner.c_str(), runner.c_str(), "--plan", plan.c_str(), "--out", results.c_str(),
          static_cast<char*>(nullptr));
    std::perror(runner.c_str());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// NVIDIA GPUs through tilescope-cupti-runner: plans the GPU suite, and either writes the plan
// for the runner (to run on the GPU machine) or runs the runner here and imports its results.
class CuptiCollector final : public Collector {
 public:
  std::string name() const override { return "cupti"; }
  std::string measures() const override {
    return "an NVIDIA GPU through tilescope-cupti-runner: tilescope's CUDA GEMM on mappings, "
           "cuBLAS, cuBLASLt, vector kernels (docs/cupti.md)";
  }
  std::vector<TimingScope> scopes() const override {
    return {TimingScope::device, TimingScope::host_call};
  }
  std::vector<std::string> implementations() const override { return kRunnerImplementations; }

  int measure(const MeasureRequest& a, CollectorSession& session) const override {
    if (a.plan_file.empty() && a.db_path.empty())
      throw InputError(SourceLocation{"--collector", 0, 0},
                       "measure --collector cupti needs --plan FILE (write the plan for "
                       "tilescope-cupti-runner) or --db FILE (run the runner here and import)");
    std::string arch = resolve_architecture_option(a.arch_file);
    if (arch.empty() || arch == kHostArch) {
      arch = bundled_file("samples/arch/nvidia-h200.yaml").string();
      session.warn("predicting on " + arch + " (give another graph with --arch)");
    }
    const ArchitectureGraph graph = load_architecture(arch);
    const Workload workload = load_workload(a.workload_file);
    GpuSuiteOptions o;
    o.mappings_per_gemm = a.mappings_per_gemm ? a.mappings_per_gemm : o.mappings_per_gemm;
    o.seed = a.seed;
    o.mapper.budget = a.mapper_budget;
    o.repetitions = a.repetitions ? a.repetitions : o.repetitions;
    o.cold_l2 = a.flush_caches;
    if (a.kernel_template_file == kDefaultKernelTemplate)
      o.gemm_template = load_mapping(bundled_file(kDefaultKernelTemplate).string());
    else if (!a.kernel_template_file.empty())
      o.gemm_template = load_mapping(a.kernel_template_file);
    const GpuSuite suite = gpu_suite(workload, graph, o);
    // The plan carries the mapper's choices: say which searches ran out of budget.
    const std::string unconverged = unconverged_text(suite.unconverged.operators, a.mapper_budget);
    std::map<std::string, int> per_impl;
    for (const GpuSuiteEntry& e : suite.entries) ++per_impl[e.implementation];
    std::vector<std::string> comments = {
        "written by: " + a.command_line,
        fmt::format("workload {} ({}), graph {} ({}, hash {})", workload.name, a.workload_file,
                    graph.name, arch, suite.arch_hash),
        fmt::format("import with: tilescope import runner RESULTS --db FILE --arch {}", arch)};
    if (!unconverged.empty()) comments.push_back(unconverged);
    const std::string text = plan_text(suite, comments);
    std::string counts;
    for (const auto& [impl, n] : per_impl)
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, impl);
    if (!a.plan_file.empty()) {
      write_text_file(a.plan_file, text);
      if (!unconverged.empty()) session.warn("warning: " + unconverged);
      session.print(
          fmt::format("wrote {} jobs ({}) to {}", suite.entries.size(), counts, a.plan_file) +
          (suite.notes.empty()
               ? std::string()
               : fmt::format("; {} left out (see the plan's comments)", suite.notes.size())));
      return 0;
    }
    const std::string runner = find_runner(a.runner_path);
    const auto dir = std::filesystem::temp_directory_path() /
                     fmt::format("tilescope-cupti-{}", static_cast<long>(getpid()));
    std::filesystem::create_directories(dir);
    const std::string plan = (dir / "suite.plan").string(),
                      results = (dir / "results.jsonl").string();
    write_text_file(plan, text);
    if (!unconverged.empty()) session.warn("warning: " + unconverged);
    const int rc = run_runner(runner, plan, results);
    if (rc == 2 || (session.cancel && session.cancel->load())) {
      // no device or a bad plan (the runner said why in one line), or stopped by the user
      std::filesystem::remove_all(dir);
      return rc == 2 ? 2 : 130;
    }
    if (rc != 0 && rc != 1)
      throw std::runtime_error(
          fmt::format("{} ended with status {}; its results are in {}", runner, rc, results));
    ImportRequest io;
    io.file = results;
    io.db_path = a.db_path;
    io.options = {
        {"workload", a.workload_file}, {"arch", arch}, {"budget", std::to_string(a.mapper_budget)}};
    io.command_line = a.command_line;
    io.tool_version = a.tool_version;
    register_builtin_importers(importers());
    report_import(importers().get("runner", "--collector").import(io), a.db_path, session.print,
                  session.warn);
    std::filesystem::remove_all(dir);
    return rc == 1 ? 1 : 0;
  }
};

// This CPU, through the host collector (collectors/host): tiled GEMMs on mappings, OpenBLAS and
// the vector kernels, timed with a wall clock around each call.
class HostCollector final : public Collector {
 public:
  std::string name() const override { return "host"; }
  std::string measures() const override {
    return "this CPU: tilescope's tiled GEMM on mappings, OpenBLAS, vector kernels (docs/host.md)";
  }
  std::vector<TimingScope> scopes() const override { return {TimingScope::host_call}; }
  std::vector<std::string> implementations() const override {
    std::vector<std::string> out;
    for (host::HostKernel k :
         {host::HostKernel::tiled, host::HostKernel::openblas, host::HostKernel::vector})
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
    if (a.arch_file.empty()) a.arch_file = kHostArch;
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
    std::vector<host::HostJob> jobs;
    std::vector<std::pair<std::string, std::string>> saved;  // written together, or none
    for (const SuiteEntry& e : suite.entries) {
      if (e.program && !a.save_mappings_dir.empty())
        saved.emplace_back(
            (std::filesystem::path(a.save_mappings_dir) /
             (safe_file_name(e.mapping->name) + ".yaml"))
                .string(),
            mapping_yaml(*e.program, e.mapping->name,
                         fmt::format("{} on {}: {}", e.op.name, graph.name, e.op.shape_text())));
      jobs.push_back(host::host_job(e));
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

    host::HostCollectorOptions options;
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
    const host::OpenBlasCore blas = host::openblas_core();
    if (!blas.advice.empty() && a.openblas) session.warn("warning: " + blas.advice);
    start.device.properties_json = nlohmann::json{
        {"description", graph.description},
        {"arch_file", a.arch_file},
        {"openblas_core", blas.name},
        {"openblas_config",
         blas.config}}.dump();
    const int64_t run = store.begin_run(start);

    if (const auto others = host::other_cores_over(0.25); others && *others > options.busy_cores)
      session.warn(
          fmt::format("warning: the machine is busy: other processes use {:.1f} of its "
                      "{} cores; points measured meanwhile are marked unstable",
                      *others, host::online_cpus()));
    size_t unchecked = 0, unpinned = 0, busy = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const size_t delivered = host::run_host_jobs(
        jobs, options,
        [&](const Measurement& m) {
          if (!m.checked) ++unchecked;
          if (m.instability == Instability::machine_busy)
            ++busy;
          else if (m.instability != Instability::none)
            ++unpinned;
          store.add_measurement(run, m);
        },
        [&](const host::HostProgress& p) {
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

int run_measure(const MeasureArgs& args, const std::string& command_line) {
  const Collector& collector = collectors().get(args.collector, "--collector");
  MeasureRequest request = args.request;
  request.flush_caches = !args.no_flush;
  request.openblas = !args.no_openblas;
  request.command_line = command_line;
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

}  // namespace

void register_builtin_collectors(CollectorRegistry& registry) {
  if (!registry.names().empty()) return;  // already registered (add_measure runs once per CLI)
  registry.add(std::make_unique<HostCollector>());
  registry.add(std::make_unique<CuptiCollector>());
}

CommandAction add_measure(CLI::App& app) {
  register_builtin_collectors(collectors());
  auto a = std::make_shared<MeasureArgs>();
  auto* cmd = app.add_subcommand(
      "measure", "run a suite's operators on a collector and store measurements and predictions");
  std::string where = "where to measure:";
  for (const std::string& name : collectors().names())
    where += "\n  " + name + ": " + collectors().find(name)->measures();
  cmd->add_option("--collector", a->collector, where)->capture_default_str();
  cmd->add_option("--workload", a->request.workload_file, "workload suite (YAML)")->required();
  cmd->add_option(
         "--arch", a->request.arch_file,
         "the collector's architecture graph (from calibrate): a file or profile:NAME[/VARIANT]")
      ->capture_default_str();
  cmd->add_option("--db", a->request.db_path, "results database (SQLite), created when missing");
  cmd->add_option("--plan", a->request.plan_file,
                  "cupti: write the plan for tilescope-cupti-runner to this file and stop");
  cmd->add_option("--runner", a->request.runner_path,
                  "cupti: the runner to run (default: tilescope-cupti-runner beside tilescope)");
  cmd->add_option("--mappings", a->request.mappings_dir,
                  "folder of mapping files (each names its operator) for the GEMMs; default: "
                  "the mapper's top 3 and seeded samples of its valid space");
  cmd->add_option("--kernel-template", a->request.kernel_template_file,
                  "cupti: the template the mappings of tilescope's own GEMM kernel are searched "
                  "from: the kernel's schedule ('' for the graph's matmul template)")
      ->capture_default_str();
  cmd->add_option("--mappings-per-gemm", a->request.mappings_per_gemm,
                  "mappings per GEMM when generated (default: host 8, cupti 4)");
  cmd->add_option("--seed", a->request.seed,
                  "seed for drawn mappings, job order and operand values")
      ->capture_default_str();
  cmd->add_option("--save-mappings", a->request.save_mappings_dir,
                  "write the measured mappings to a folder");
  cmd->add_option("--repetitions", a->request.repetitions,
                  "timed repetitions per operator (>= 5; default: host 7, cupti 20)");
  cmd->add_option("--max-repetitions", a->request.max_repetitions,
                  "host: at most this many, while the median is not within --tolerance "
                  "(default 40)");
  cmd->add_option("--tolerance", a->request.tolerance,
                  "host: the 95 % interval of each median aimed at, as a fraction (default 0.05)")
      ->check(CLI::Range(0.001, 1.0));
  cmd->add_option("--threads", a->request.threads, "threads (0: one per core)")
      ->capture_default_str();
  cmd->add_option("--group", a->request.group_size, "operators whose repetitions are interleaved")
      ->capture_default_str();
  cmd->add_option("--budget", a->request.mapper_budget, "mapper evaluations per operator")
      ->capture_default_str();
  cmd->add_flag("--no-flush", a->no_flush, "do not flush the caches before each repetition");
  cmd->add_flag("--no-openblas", a->no_openblas, "skip the OpenBLAS GEMMs");
  return [a] { return run_measure(*a, command_line()); };
}

}  // namespace ts::cli
