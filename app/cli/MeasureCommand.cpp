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
#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "host/HostCollector.hpp"
#include "host/OpenBlasCore.hpp"
#include "mapper/MappingSet.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"
#include "measure/ResultStore.hpp"
#include "plan/MeasurementPlan.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/RunnerImport.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_interrupt(int) { g_stop.store(true); }

constexpr const char* kHostArch = "out/host.yaml";

struct MeasureArgs {
  std::string collector = "host", workload, arch = kHostArch, mappings, db, save_mappings;
  std::string plan, runner;  // cupti
  std::string kernel_template =
      std::string(TILESCOPE_SOURCE_DIR) + "/samples/mappings/nvidia-wmma-kernel-template.yaml";
  size_t per_gemm = 0;  // 0: the collector's default (host 8, cupti 4)
  uint64_t seed = 20261129;
  int repetitions = 0, threads = 0, group = 8;  // repetitions 0: host 7, cupti 20
  bool no_flush = false, no_openblas = false;
  uint64_t budget = MapperOptions{}.budget;
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

class ProgressBar {
 public:
  explicit ProgressBar(bool tty) : tty_(tty) {}
  void show(const host::HostProgress& p) {
    if (!tty_ || p.total == 0) return;
    const int width = 30;
    const int filled = static_cast<int>(width * p.done / p.total);
    std::cerr << fmt::format("\r\033[K[{}{}] {}/{} repetitions  {}", std::string(filled, '#'),
                             std::string(width - filled, '-'), p.done, p.total, p.current)
              << std::flush;
  }
  void clear() {
    if (tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool tty_;
};

}  // namespace

// ImportCommand.cpp
int print_runner_import(const RunnerImport& imported, const std::string& db);

namespace {

// Writes through a temporary file and a rename, so that a failure leaves no half plan.
void write_text_file(const std::string& path, const std::string& text) {
  if (auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!(out << text)) throw InputError(SourceLocation{path, 0, 0}, "cannot write the plan");
  }
  std::filesystem::rename(tmp, path);
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

int run_measure_cupti(const MeasureArgs& a, const std::string& command_line) {
  if (a.plan.empty() && a.db.empty())
    throw InputError(SourceLocation{"--collector", 0, 0},
                     "measure --collector cupti needs --plan FILE (write the plan for "
                     "tilescope-cupti-runner) or --db FILE (run the runner here and import)");
  std::string arch = a.arch;
  if (arch == kHostArch) {
    arch = std::string(TILESCOPE_SOURCE_DIR) + "/samples/arch/nvidia-h200.yaml";
    std::cerr << "predicting on " << arch << " (give another graph with --arch)\n";
  }
  const ArchitectureGraph graph = load_architecture(arch);
  const Workload workload = load_workload(a.workload);
  GpuSuiteOptions o;
  o.mappings_per_gemm = a.per_gemm ? a.per_gemm : o.mappings_per_gemm;
  o.seed = a.seed;
  o.mapper.budget = a.budget;
  o.repetitions = a.repetitions ? a.repetitions : o.repetitions;
  o.cold_l2 = !a.no_flush;
  if (!a.kernel_template.empty()) o.gemm_template = load_mapping(a.kernel_template);
  const GpuSuite suite = gpu_suite(workload, graph, o);
  std::map<std::string, int> per_impl;
  for (const GpuSuiteEntry& e : suite.entries) ++per_impl[e.implementation];
  const std::vector<std::string> comments = {
      "written by: " + command_line,
      fmt::format("workload {} ({}), graph {} ({}, hash {})", workload.name, a.workload, graph.name,
                  arch, suite.arch_hash),
      fmt::format("import with: tilescope import runner RESULTS --db FILE --arch {}", arch)};
  const std::string text = plan_text(suite, comments);
  std::string counts;
  for (const auto& [impl, n] : per_impl)
    counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", n, impl);
  if (!a.plan.empty()) {
    write_text_file(a.plan, text);
    std::cout << fmt::format("wrote {} jobs ({}) to {}", suite.entries.size(), counts, a.plan)
              << (suite.notes.empty()
                      ? std::string()
                      : fmt::format("; {} left out (see the plan's comments)", suite.notes.size()))
              << "\n";
    return 0;
  }
  const std::string runner = find_runner(a.runner);
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("tilescope-cupti-{}", static_cast<long>(getpid()));
  std::filesystem::create_directories(dir);
  const std::string plan = (dir / "suite.plan").string(),
                    results = (dir / "results.jsonl").string();
  write_text_file(plan, text);
  const int rc = run_runner(runner, plan, results);
  if (rc == 2) {  // no device or a bad plan: the runner said why in one line
    std::filesystem::remove_all(dir);
    return 2;
  }
  if (rc != 0 && rc != 1)
    throw std::runtime_error(
        fmt::format("{} ended with status {}; its results are in {}", runner, rc, results));
  RunnerImportOptions io;
  io.results_path = results;
  io.db_path = a.db;
  io.workload_file = a.workload;
  io.arch_file = arch;
  io.mapper = o.mapper;
  io.command_line = command_line;
  io.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  const int printed = print_runner_import(import_runner_results(io), a.db);
  std::filesystem::remove_all(dir);
  return rc == 1 ? 1 : printed;
}

int run_measure(const MeasureArgs& args, const std::string& command_line) {
  if (args.collector == "cupti") return run_measure_cupti(args, command_line);
  if (args.collector != "host")
    throw InputError(SourceLocation{"--collector", 0, 0},
                     "unknown collector '" + args.collector + "' (this build has: host, cupti)");
  if (args.db.empty())
    throw InputError(SourceLocation{"--db", 0, 0},
                     "measure --collector host needs --db FILE, the results database");
  MeasureArgs a = args;
  if (a.per_gemm == 0) a.per_gemm = 8;
  if (a.repetitions == 0) a.repetitions = 7;
  if (!std::filesystem::exists(a.arch))
    throw InputError(SourceLocation{a.arch, 0, 0},
                     "no such architecture graph; `tilescope calibrate host --out " + a.arch +
                         "` writes one for this machine");
  const ArchitectureGraph graph = load_architecture(a.arch);
  const Workload workload = load_workload(a.workload);
  std::map<std::string, std::vector<Mapping>> given;
  if (!a.mappings.empty()) given = load_mapping_folder(a.mappings);

  MapperOptions mapper;
  mapper.budget = a.budget;
  std::vector<host::HostJob> jobs;
  std::vector<PredictionRecord> predictions;
  const bool tty = isatty(STDERR_FILENO);
  for (size_t i = 0; i < workload.operators.size(); ++i) {
    const Operator& op = workload.operators[i];
    if (tty)
      std::cerr << fmt::format("\r\033[Kpredicting {}/{}: {}", i + 1, workload.operators.size(),
                               op.name)
                << std::flush;
    const OperatorKey key = operator_key(op, workload.name);
    if (is_gemm(op)) {
      std::vector<NamedProgram> programs;
      if (auto it = given.find(op.name); it != given.end()) {
        for (const Mapping& m : it->second) {
          OperatorPredictionOptions o;
          o.mapping = &m;
          o.mapper = mapper;
          programs.push_back({m.name, resolve_mapping(op, graph, o)});
        }
      } else {
        programs = suite_mappings(op, graph, a.per_gemm, a.seed, mapper);
      }
      for (NamedProgram& np : programs) {
        Evaluation eval;
        evaluate(np.program, eval);
        throw_if_invalid(np.program, eval);
        const MappingRecord rec = mapping_record(np.program, np.name);
        predictions.push_back(
            prediction_record(make_prediction(np.program, eval), key, rec, graph, ""));
        if (!a.save_mappings.empty()) {
          std::filesystem::create_directories(a.save_mappings);
          std::ofstream(a.save_mappings + "/" + np.name + ".yaml")
              << mapping_yaml(np.program, np.name,
                              fmt::format("{} on {}: {}", op.name, graph.name, op.shape_text()));
        }
        host::HostJob job;
        job.op = op;
        job.kernel = host::HostKernel::tiled;
        job.program = std::move(np.program);
        job.mapping = rec;
        job.suite = workload.name;
        jobs.push_back(std::move(job));
      }
    }
    if (is_gemm(op) && a.no_openblas) continue;
    // A black box (OpenBLAS) or the vector kernels: the mapper's choice is the prediction.
    MappingProgram chosen;
    OperatorPredictionOptions o;
    o.mapper = mapper;
    const Prediction p = predict_operator(op, graph, o, &chosen);
    predictions.push_back(prediction_record(p, key, std::nullopt, graph,
                                            mapping_yaml(chosen, op.name + "-mapper", "")));
    host::HostJob job;
    job.op = op;
    job.kernel = is_gemm(op) ? host::HostKernel::openblas : host::HostKernel::vector;
    job.suite = workload.name;
    jobs.push_back(std::move(job));
  }
  if (tty) std::cerr << "\r\033[K" << std::flush;
  // Mixed order, fixed seed: the repetitions of a group interleave different operators.
  std::shuffle(jobs.begin(), jobs.end(), std::mt19937_64(a.seed));

  if (auto parent = std::filesystem::path(a.db).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  ResultStore store(a.db, ResultStore::Mode::read_write);
  for (const auto& p : predictions) store.add_prediction(p);

  host::HostCollectorOptions options;
  options.repetitions = a.repetitions;
  options.threads = a.threads;
  options.group_size = a.group;
  options.flush_caches = !a.no_flush;
  options.seed = a.seed;

  RunStart start;
  start.collector = a.collector;
  start.workload = workload.name;
  start.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  nlohmann::json settings = {
      {"command", command_line},
      {"workload_file", a.workload},
      {"arch_file", a.arch},
      {"arch_hash", hash_text(graph.content_hash())},
      {"repetitions", options.repetitions},
      {"warmup", options.warmup},
      {"threads", options.threads},
      {"group_size", options.group_size},
      {"flush_caches", options.flush_caches},
      {"seed", a.seed},
      {"mappings", a.mappings.empty() ? std::string("generated") : a.mappings},
      {"mappings_per_gemm", a.per_gemm},
      {"mapper_budget", a.budget}};
  start.settings_json = settings.dump();
  start.device.name = graph.name;
  start.device.kind = "host-cpu";
  start.device.arch_hash = hash_text(graph.content_hash());
  const host::OpenBlasCore blas = host::openblas_core();
  if (!blas.advice.empty() && !a.no_openblas) std::cerr << "warning: " << blas.advice << "\n";
  start.device.properties_json = nlohmann::json{
      {"description", graph.description},
      {"arch_file", a.arch},
      {"openblas_core", blas.name},
      {"openblas_config",
       blas.config}}.dump();
  const int64_t run = store.begin_run(start);

  g_stop.store(false);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  ProgressBar bar(tty);
  size_t unchecked = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const size_t delivered = host::run_host_jobs(
      jobs, options,
      [&](const Measurement& m) {
        if (!m.checked) ++unchecked;
        store.add_measurement(run, m);
      },
      [&](const host::HostProgress& p) { bar.show(p); }, &g_stop);
  bar.clear();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const bool stopped = g_stop.load();
  store.finish_run(run, stopped ? RunStatus::cancelled : RunStatus::complete);
  std::cerr << fmt::format("run {}: {} of {} measurements in {:.1f} s{} -> {}\n", run, delivered,
                           jobs.size(), seconds, stopped ? " (stopped: run marked cancelled)" : "",
                           a.db);
  if (unchecked > 0)
    std::cerr << fmt::format(
        "warning: {} measurements disagree with their reference "
        "implementation (stored with checked = 0; correlate skips them)\n",
        unchecked);
  return stopped ? 130 : 0;
}

}  // namespace

CommandAction add_measure(CLI::App& app) {
  auto a = std::make_shared<MeasureArgs>();
  auto* cmd = app.add_subcommand(
      "measure", "run a suite's operators on a collector and store measurements and predictions");
  cmd->add_option("--collector", a->collector,
                  "where to measure: host (this CPU) or cupti (an NVIDIA GPU, docs/cupti.md)")
      ->capture_default_str();
  cmd->add_option("--workload", a->workload, "workload suite (YAML)")->required();
  cmd->add_option("--arch", a->arch, "the collector's architecture graph (from calibrate)")
      ->capture_default_str();
  cmd->add_option("--db", a->db, "results database (SQLite), created when missing");
  cmd->add_option("--plan", a->plan,
                  "cupti: write the plan for tilescope-cupti-runner to this file and stop");
  cmd->add_option("--runner", a->runner,
                  "cupti: the runner to run (default: tilescope-cupti-runner beside tilescope)");
  cmd->add_option("--mappings", a->mappings,
                  "folder of mapping files (each names its operator) for the GEMMs; default: "
                  "the mapper's top 3 and seeded samples of its valid space");
  cmd->add_option("--kernel-template", a->kernel_template,
                  "cupti: the template the mappings of tilescope's own GEMM kernel are searched "
                  "from: the kernel's schedule ('' for the graph's matmul template)")
      ->capture_default_str();
  cmd->add_option("--mappings-per-gemm", a->per_gemm,
                  "mappings per GEMM when generated (default: host 8, cupti 4)");
  cmd->add_option("--seed", a->seed, "seed for drawn mappings, job order and operand values")
      ->capture_default_str();
  cmd->add_option("--save-mappings", a->save_mappings, "write the measured mappings to a folder");
  cmd->add_option("--repetitions", a->repetitions,
                  "timed repetitions per operator (>= 5; default: host 7, cupti 20)");
  cmd->add_option("--threads", a->threads, "threads (0: one per core)")->capture_default_str();
  cmd->add_option("--group", a->group, "operators whose repetitions are interleaved")
      ->capture_default_str();
  cmd->add_option("--budget", a->budget, "mapper evaluations per operator")->capture_default_str();
  cmd->add_flag("--no-flush", a->no_flush, "do not flush the caches before each repetition");
  cmd->add_flag("--no-openblas", a->no_openblas, "skip the OpenBLAS GEMMs");
  return [a] { return run_measure(*a, command_line()); };
}

}  // namespace ts::cli
