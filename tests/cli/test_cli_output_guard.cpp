// The output guard on every command that writes a file (common/OutputPath.hpp, tagged in
// app/cli/CommandLineGrammar.cpp and app/report/ReportCommandLine.cpp): an output named as one
// of the command's inputs, or two outputs named as one file, exit 2 before any work with one line
// that names both options, and the input is left as it was, byte for byte.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

namespace fs = std::filesystem;

const std::string kGuardKineto = "tests/fixtures/trace/kineto/bert_step.json";
const std::string kGuardDb = "tests/fixtures/db/results-v1.sqlite";
const std::string kGuardSimulation = "tests/fixtures/output_guard/simulation.json";
const std::string kGuardModel = "samples/dist/models/gpt-22b.yaml";
const std::string kGuardStrategy = "samples/dist/strategies/gpt-22b-full.yaml";
const std::string kGuardCluster = "samples/dist/clusters/selene.yaml";

// One command whose output is pointed at an input (or at its other output).
struct GuardCase {
  std::string name;
  std::string source;  // the real input copied into the case's folder
  std::string copy;    // its name there
  // The command; "{IN}" is the copy's path, "{DIR}" the folder's.
  std::vector<std::string> args;
  std::string output, input;  // the options the one line names: "OUTPUT: '...' ... INPUT '"
};

std::vector<GuardCase> guard_cases() {
  const std::vector<std::string> simulate{"simulate",     "--model",   kGuardModel,  "--strategy",
                                          kGuardStrategy, "--cluster", kGuardCluster};
  auto with = [](std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
  };
  return {
      {"db export --out over --db",
       kGuardDb,
       "runs.sqlite",
       {"db", "export", "--db", "{IN}", "--out", "{IN}"},
       "--out",
       "--db"},
      {"import kineto --workload-out over --db",
       kGuardDb,
       "runs.sqlite",
       {"import", "kineto", kGuardKineto, "--db", "{IN}", "--workload-out", "{IN}"},
       "--workload-out",
       "--db"},
      {"import kineto --workload-out over the trace",
       kGuardKineto,
       "trace.json",
       {"import", "kineto", "{IN}", "--db", "{DIR}/new.sqlite", "--workload-out", "{IN}"},
       "--workload-out",
       "FILE"},
      {"import kineto --db over the trace",
       kGuardKineto,
       "trace.json",
       {"import", "kineto", "{IN}", "--db", "{IN}"},
       "--db",
       "FILE"},
      {"import msprof --workload-out over the table",
       "tests/fixtures/trace/msprof/op_summary_cann8.csv",
       "op_summary.csv",
       {"import", "msprof", "{IN}", "--db", "{DIR}/new.sqlite", "--workload-out", "{IN}"},
       "--workload-out",
       "FILE"},
      {"fit --out over --measurements",
       "tests/fixtures/csv/gemm-small.csv",
       "gemm.csv",
       {"fit", "--arch", "samples/arch/ascend910b3.yaml", "--measurements", "{IN}", "--op", "gemm",
        "--param", "launch_overhead", "--out", "{IN}"},
       "--out",
       "--measurements"},
      {"fit --out over --arch",
       "samples/arch/ascend910b3.yaml",
       "ascend.yaml",
       {"fit", "--arch", "{IN}", "--measurements", "tests/fixtures/csv/gemm-small.csv", "--op",
        "gemm", "--param", "launch_overhead", "--out", "{IN}"},
       "--out",
       "--arch"},
      {"calibrate --out over --from-runner",
       "tests/fixtures/cupti/calibration-sweeps.jsonl",
       "calibration.jsonl",
       {"calibrate", "--from-runner", "{IN}", "--out", "{IN}"},
       "--out",
       "--from-runner"},
      {"simulate --out over --model",
       kGuardModel,
       "model.yaml",
       {"simulate", "--model", "{IN}", "--strategy", kGuardStrategy, "--cluster", kGuardCluster,
        "--out", "{IN}"},
       "--out",
       "--model"},
      {"simulate --timeline over --strategy",
       kGuardStrategy,
       "strategy.yaml",
       {"simulate", "--model", kGuardModel, "--strategy", "{IN}", "--cluster", kGuardCluster,
        "--timeline", "{IN}"},
       "--timeline",
       "--strategy"},
      {"simulate --out over --cluster",
       kGuardCluster,
       "cluster.yaml",
       {"simulate", "--model", kGuardModel, "--strategy", kGuardStrategy, "--cluster", "{IN}",
        "--out", "{IN}"},
       "--out",
       "--cluster"},
      {"simulate --out over --operator-times db:FILE", kGuardDb, "runs.sqlite",
       with(simulate, {"--operator-times", "db:{IN}", "--out", "{IN}"}), "--out",
       "--operator-times"},
      {"simulate --out and --timeline into one file", kGuardSimulation, "sim.json",
       with(simulate, {"--out", "{IN}", "--timeline", "{IN}"}), "--timeline", "--out"},
      {"sweep --db over --model",
       kGuardModel,
       "model.yaml",
       {"sweep", "--strategy-grid", "tp=1,2", "--model", "{IN}", "--strategy", kGuardStrategy,
        "--cluster", kGuardCluster, "--db", "{IN}"},
       "--db",
       "--model"},
      {"predict --save-mappings over --workload",
       "samples/workloads/bert-base.yaml",
       "bert-base.yaml",
       {"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload", "{IN}",
        "--save-mappings", "{IN}"},
       "--save-mappings",
       "--workload"},
      // The folder is new to the grammar; the file the command would write in it is --mapping.
      {"predict --save-mappings over the --mapping in its folder",
       "samples/mappings/ascend910b3-bert-base-qkv_proj.yaml",
       "ascend910b3-bert-base-qkv_proj.yaml",
       {"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
        "samples/workloads/bert-base.yaml", "--op", "qkv_proj", "--mapping", "{IN}",
        "--save-mappings", "{DIR}"},
       "--save-mappings",
       "--mapping"},
      {"measure --plan over --workload",
       "tests/fixtures/cupti/small-gpu-suite.yaml",
       "suite.yaml",
       {"measure", "--collector", "cupti", "--workload", "{IN}", "--arch",
        "samples/arch/nvidia-h200.yaml", "--plan", "{IN}"},
       "--plan",
       "--workload"},
      {"measure --db over --workload",
       "tests/fixtures/cupti/small-gpu-suite.yaml",
       "suite.yaml",
       {"measure", "--workload", "{IN}", "--db", "{IN}"},
       "--db",
       "--workload"},
      {"profiles new gpu --graph over --spec",
       "plugins/nvidia/gpus/t4.spec.yaml",
       "t4.spec.yaml",
       {"profiles", "new", "gpu", "--spec", "{IN}", "--calibration", "none", "--graph", "{IN}"},
       "--graph",
       "--spec"},
      {"profiles new gpu --out over --spec",
       "plugins/nvidia/gpus/t4.spec.yaml",
       "t4.spec.yaml",
       {"profiles", "new", "gpu", "--spec", "{IN}", "--calibration", "none", "--out", "{IN}"},
       "--out",
       "--spec"},
      // The folder is new to the grammar; the spec file the command would write in it is --spec.
      {"profiles new gpu --out over the --spec in its folder",
       "plugins/nvidia/gpus/t4.spec.yaml",
       "t4.spec.yaml",
       {"profiles", "new", "gpu", "--spec", "{IN}", "--calibration", "none", "--out", "{DIR}",
        "--force"},
       "--out",
       "--spec"},
      {"report --out over --db",
       kGuardDb,
       "runs.html",
       {"report", "--db", "{IN}", "--out", "{IN}"},
       "--out",
       "--db"},
      {"report --out over --diff",
       kGuardDb,
       "runs.html",
       {"report", "--db", kGuardDb, "--diff", "{IN}", "--out", "{IN}"},
       "--out",
       "--diff"},
      {"report --figures over --simulation",
       kGuardSimulation,
       "sim.json",
       {"report", "--db", kGuardDb, "--simulation", "{IN}", "--out", "{DIR}/r.html", "--figures",
        "{IN}"},
       "--figures",
       "--simulation"},
      {"report --out and --figures into one file",
       kGuardSimulation,
       "old.html",
       {"report", "--db", kGuardDb, "--out", "{IN}", "--figures", "{IN}"},
       "--figures",
       "--out"},
      {"report --trace --out over the trace",
       kGuardKineto,
       "trace.html",
       {"report", "--trace", "{IN}", "--out", "{IN}"},
       "--out",
       "--trace"},
  };
}

std::string replaced(std::string arg, const std::string& in, const std::string& dir) {
  const std::vector<std::pair<std::string, std::string>> keys{{"{IN}", in}, {"{DIR}", dir}};
  for (const auto& [key, value] : keys)
    for (size_t at = arg.find(key); at != std::string::npos; at = arg.find(key, at + value.size()))
      arg.replace(at, key.size(), value);
  return arg;
}

}  // namespace

TEST_CASE("every command that writes a file refuses to write it over an input or another output",
          "[cli][output-guard]") {
  for (const GuardCase& c : guard_cases()) {
    DYNAMIC_SECTION(c.name) {
      ts::test::TempDir dir("guard");
      const std::string in = dir / c.copy;
      fs::copy_file(root_path(c.source), in);
      const std::string before = read_text(in);
      std::vector<std::string> args;
      for (const std::string& a : c.args) args.push_back(replaced(a, in, dir.path().string()));
      const RunResult r = run_tilescope(args);
      INFO(r.command << "\nstderr: " << r.err);
      CHECK(r.status == 2);
      CHECK(r.out.empty());
      // One line: "OUTPUT: 'PATH' is the same file as INPUT 'PATH'; ...".
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK_THAT(r.err, Catch::StartsWith(c.output + ": '"));
      CHECK_THAT(r.err, Catch::Contains("' is the same file as " + c.input + " '"));
      // Nothing written: the input as it was, and nothing beside it (no database made, no
      // temporary file left).
      CHECK(read_text(in) == before);
      CHECK(dir.names() == std::vector<std::string>{c.copy});
    }
  }
}

TEST_CASE("an output that is no input runs as before", "[cli][output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string model = dir / "model.yaml";
  fs::copy_file(root_path(kGuardModel), model);
  fs::create_directory(dir.path() / "sub");
  // The same spellings the guard compares, but of different files; stdout is no file.
  const RunResult r = run_tilescope(
      {"simulate", "--model", model, "--strategy", kGuardStrategy, "--cluster", kGuardCluster,
       "--out", dir / "sim.json", "--timeline", dir / "sub/../timeline.json", "--format", "json"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(fs::exists(dir / "sim.json"));
  CHECK(fs::exists(dir / "timeline.json"));
  // `import` adds to its database: the database is not its own input's clash.
  const RunResult i = run_tilescope({"import", "kineto", kGuardKineto, "--db", dir / "runs.sqlite",
                                     "--workload-out", dir / "workload.yaml"});
  INFO(i.err);
  CHECK(i.status == 0);
}

TEST_CASE("report --simulation takes a simulation only, --trace a profiler's trace only",
          "[cli][output-guard][report]") {
  ts::test::TempDir dir("guard-kind");
  const std::string out = dir / "report.html";
  SECTION("a Kineto trace given as the simulation") {
    const RunResult r =
        run_tilescope({"report", "--db", kGuardDb, "--simulation", kGuardKineto, "--out", out});
    INFO(r.err);
    CHECK(r.status == 2);
    CHECK(r.err == "--simulation: '" + kGuardKineto +
                       "' is a profiler's trace (PyTorch profiler, Kineto), not a simulation: "
                       "`report --trace` reports it; expected the JSON file `tilescope simulate "
                       "--out` writes (its summary and timeline)\n");
  }
  SECTION("a results database or a YAML file given as the simulation") {
    for (const std::string& wrong : {kGuardDb, kGuardModel}) {
      const RunResult r =
          run_tilescope({"report", "--db", kGuardDb, "--simulation", wrong, "--out", out});
      INFO(r.err);
      CHECK(r.status == 2);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK_THAT(r.err, Catch::Contains(wrong));
    }
  }
  SECTION("JSON of another kind given as the simulation") {
    const std::string json = dir / "sweep.json";
    std::ofstream(json) << R"({"schema_version": 1, "sweep": []})";
    const RunResult r =
        run_tilescope({"report", "--db", kGuardDb, "--simulation", json, "--out", out});
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::StartsWith("--simulation: '" + json +
                                        "' is JSON of another kind, not a simulation"));
  }
  SECTION("a simulation given as a trace") {
    const RunResult r = run_tilescope({"report", "--trace", kGuardSimulation, "--out", out});
    INFO(r.err);
    CHECK(r.status == 2);
    // The trace reader knows a trace by its content (trace/TraceFileKind), as for `trace`.
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK_THAT(r.err, Catch::StartsWith(kGuardSimulation + ": not a trace tilescope reads"));
  }
  CHECK_FALSE(fs::exists(out));
}
