// `tilescope measure --collector cupti`: the GPU suite through tilescope-cupti-runner.
#include "runner/CuptiRunnerCollector.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "arch/ArchitectureLoader.hpp"
#include "common/AtomicFile.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"
#include "host/HostSuiteCollector.hpp"
#include "mapper/SearchConvergence.hpp"
#include "plan/MeasurementPlan.hpp"
#include "profile/ArchitectureReference.hpp"
#include "tile/MappingLoader.hpp"
#include "trace/Importer.hpp"
#include "trace/RunnerResults.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::runner {
namespace {

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
class CuptiRunnerCollector final : public Collector {
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
    if (arch.empty() || arch == host::kHostGraphFile) {
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

}  // namespace

std::unique_ptr<Collector> make_cupti_runner_collector() {
  return std::make_unique<CuptiRunnerCollector>();
}

}  // namespace ts::runner
