// `tilescope import runner RESULTS.jsonl --db FILE --workload W --arch A`: brings the CUPTI
// runner's results into the results database beside the host collector's (docs/cupti.md).
#include <fmt/format.h>

#include <iostream>

#include "Commands.hpp"
#include "trace/RunnerImport.hpp"

namespace ts::cli {

struct ImportRunnerArgs {
  std::string results, db, workload, arch;
  uint64_t budget = MapperOptions{}.budget;
};

int print_runner_import(const RunnerImport& imported, const std::string& db) {
  for (const ImportedRun& r : imported.runs)
    std::cout << fmt::format("run {} {} {}: {} measurements{}\n", r.id, r.implementation,
                             to_string(r.scope), r.measurements,
                             r.unchecked ? fmt::format(" ({} disagree with their reference: "
                                                       "correlate leaves them out)",
                                                       r.unchecked)
                                         : std::string());
  for (const std::string& n : imported.notes)
    std::cerr << "warning: runner job failed: " << n << "\n";
  std::cerr << fmt::format("imported {} runs and {} predictions into {}\n", imported.runs.size(),
                           imported.predictions, db);
  return 0;
}

RunnerImportOptions runner_import_options(const ImportRunnerArgs& a) {
  RunnerImportOptions o;
  o.results_path = a.results;
  o.db_path = a.db;
  o.workload_file = a.workload;
  o.arch_file = a.arch;
  o.mapper.budget = a.budget;
  o.command_line = command_line();
  o.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  return o;
}

CommandAction add_import(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("import",
                                     "bring measurements made elsewhere into a results "
                                     "database (see docs/cupti.md)");
  cmd->require_subcommand(1);
  auto a = std::make_shared<ImportRunnerArgs>();
  CLI::App* runner = cmd->add_subcommand(
      "runner", "results of tilescope-cupti-runner (JSON lines), with their predictions");
  runner->add_option("results", a->results, "the runner's results (JSON lines)")->required();
  runner->add_option("--db", a->db, "results database (SQLite), created when missing")->required();
  runner->add_option("--arch", a->arch,
                     "graph to predict every record on; the predictions are stored with the runs "
                     "(without it, give --arch to correlate)");
  runner->add_option("--workload", a->workload,
                     "check that every record's operator is this workload's, unchanged");
  runner->add_option("--budget", a->budget, "mapper evaluations per black-box operator")
      ->capture_default_str();
  return [runner, a] {
    if (!runner->parsed()) return 2;
    return print_runner_import(import_runner_results(runner_import_options(*a)), a->db);
  };
}

}  // namespace ts::cli
