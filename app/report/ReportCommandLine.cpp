// tilescope-report's command line: the one file of the program that sees CLI11. It declares the
// options into ReportCommandOptions and runs the report (ReportCommand.cpp).
#include <fmt/format.h>

#include <csignal>
#include <memory>
#include <string_view>
#include <vector>

#include "Commands.hpp"
#include "PathOptions.hpp"
#include "ReportCommand.hpp"
#include "ReportForward.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/ProfileCostHooks.hpp"

namespace ts::cli {
namespace {

// The report's options on `cmd`; the returned function makes the report from them.
std::function<int()> add_report_options(CLI::App& cmd) {
  auto a = std::make_shared<ReportCommandOptions>();
  // Every option that names a file, read or written: checked before the report is made.
  auto files = std::make_shared<FileOptions>();
  auto* db = files->input(cmd.add_option("--db", a->db,
                                         "results database (SQLite): a run's report; not needed "
                                         "for --compare, --trace, --simulation or --sweep alone"));
  cmd.add_option("--run", a->run, "run id in the database (default: the latest with a measurement)")
      ->needs(db);
  files->output(
      cmd.add_option("--out", a->out, "the report: FILE.html (self-contained) or FILE.pdf")
          ->required());
  files->input(cmd.add_option(
      "--arch", a->archs,
      fmt::format("the graph to draw and to evaluate mapping trees on, {} (default: the run's "
                  "recorded graph file); a graph other than the run's re-predicts, not stored. "
                  "With --compare: twice or more, the graphs compared (speed-ups over the first)",
                  kArchitectureForms)));
  auto* compare = cmd.add_flag(
      "--compare", a->compare,
      "no database: the --workload on every --arch side by side, as `tilescope compare` (times, "
      "speed-ups, bounds, bars per operator)");
  auto* workload = files->input(cmd.add_option(
      "--workload", a->workload, "with --compare: the workload suite (kind: workload)"));
  compare->needs(workload);
  workload->needs(compare);
  compare->excludes(db);
  auto* simulation =
      files->input(cmd.add_option("--simulation", a->simulation,
                                  "a `tilescope simulate --out` file: its summary and timeline"));
  compare->excludes(simulation);
  compare->excludes(files->input(cmd.add_option("--sweep", a->sweep,
                                                "a `tilescope sweep --db` file: its latest sweep's "
                                                "sensitivities and Pareto front (docs/sweep.md)")));
  // A trace's report is one of its own: a run's options and --compare's do not apply to it.
  auto* trace = files->input(cmd.add_option(
      "--trace", a->traces,
      "no database: where the time of a profiler's trace went, per rank (a Kineto .json / "
      ".json.gz, an Nsight Systems .sqlite, or a folder of per-rank traces; repeatable: the "
      "ranks of one job), as `tilescope trace summary`, with its bars and launch histogram"));
  cmd.add_option("--step", a->step,
                 "with --trace: the ProfilerStep to analyse (default: the whole trace)")
      ->needs(trace);
  files->input(
      cmd.add_option("--on", a->on,
                     fmt::format("with --trace and --arch (the graph of the chip the trace ran "
                                 "on): the step predicted there and on this other graph, {}, as "
                                 "`tilescope trace predict`",
                                 kArchitectureForms))
          ->needs(trace));
  trace->excludes(db);
  trace->excludes(compare);
  files->output(
      cmd.add_option("--figures", a->figures, "also write every figure as PNG and SVG into DIR"));
  compare->excludes(files->input(
      cmd.add_option("--diff", a->diff,
                     "compare with an older results database: per-operator deltas, worse first")));
  compare->excludes(cmd.add_option("--diff-run", a->diff_run,
                                   "the run to compare with (of --diff, or of --db without it)"));
  cmd.add_flag("--exclude-unstable", a->exclude_unstable,
               "leave out measurements the collector marked unstable (a busy machine, a median "
               "not pinned down)");
  auto* fail_if =
      cmd.add_option("--fail-if", a->fail_if,
                     "after writing the report, exit with status 1 when the overall figures cross "
                     "a threshold: mape>0.10, spearman<0.95, ... (repeatable)");
  compare->excludes(fail_if);
  cmd.add_option("--budget", a->budget,
                 "mapper evaluations per operator when re-predicting (or per operator and graph "
                 "with --compare)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  return [a, files] {
    files->refuse_clashes();  // before any work: no output over an input or another output
    return run_report(*a);
  };
}

}  // namespace
}  // namespace ts::cli

int main(int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);  // as tilescope: a size limit is a failed write, not a kill
  ts::provide_cost_hooks_from_profiles();  // graphs may name code plugins' cost hooks
  // `tilescope report ARGS` arrives with its `report` word (tilescope execs this program with
  // its own arguments); `tilescope-report ARGS` without it.
  const int first = argc > 1 && std::string_view(argv[1]) == "report" ? 2 : 1;
  static char tilescope[] = "tilescope", report[] = "report";
  std::vector<char*> as_typed{tilescope, report};
  as_typed.insert(as_typed.end(), argv + first, argv + argc);
  ts::cli::set_command_line(static_cast<int>(as_typed.size()), as_typed.data());

  CLI::App app{ts::cli::kReportDescription, "tilescope report"};
  const std::function<int()> run = ts::cli::add_report_options(app);
  std::vector<char*> args{argv[0]};
  args.insert(args.end(), argv + first, argv + argc);
  return ts::cli::parse_and_run(app, static_cast<int>(args.size()), args.data(), run);
}
