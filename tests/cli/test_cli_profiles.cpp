// `tilescope profiles list|show` and `--arch profile:NAME[/VARIANT]` (issue 20, must-shows 1
// and 3): a profile reference predicts exactly what the file path does, and a broken plugin is one
// line naming its path and problem while the other profiles still load.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

namespace {

// Sets the variables of the profile search path for the children of one test, and puts them
// back. XDG_DATA_HOME points at an empty folder so that the user running the tests does not
// bring their own profiles in, and XDG_CACHE_HOME at another, so that the plugin checks' cache
// starts empty and the user's is untouched; a plugin that hangs is given 1 s.
class ProfileEnvironment {
 public:
  explicit ProfileEnvironment(const std::string& plugin_path) {
    ::setenv("XDG_DATA_HOME", empty_.path().c_str(), 1);
    ::setenv("XDG_CACHE_HOME", cache_.path().c_str(), 1);
    ::setenv("TILESCOPE_PLUGIN_CHECK_TIMEOUT_S", "1", 1);
    if (plugin_path.empty())
      ::unsetenv("TILESCOPE_PLUGIN_PATH");
    else
      ::setenv("TILESCOPE_PLUGIN_PATH", plugin_path.c_str(), 1);
  }
  ~ProfileEnvironment() {
    for (const char* name : {"TILESCOPE_PLUGIN_PATH", "XDG_DATA_HOME", "XDG_CACHE_HOME",
                             "TILESCOPE_PLUGIN_CHECK_TIMEOUT_S", "TILESCOPE_PLUGIN_TRACE"})
      ::unsetenv(name);
  }
  // Where the checks' verdicts are kept.
  std::string cache_file() const { return cache_.file("tilescope/plugin-checks"); }

 private:
  ts::test::TempDir empty_{"profiles-xdg"};
  ts::test::TempDir cache_{"profiles-cache"};
};

const std::string kTestPlugins = fixture("profiles") + ":" + TILESCOPE_TEST_PLUGIN_DIR;
// Plugins that crash (SIGSEGV), hang and call exit(0) in their entry point, and libbad-hooks.so,
// whose hooks answer infinity, NaN and a negative time (tests/CMakeLists.txt).
const std::string kFaultyPlugins =
    std::filesystem::path(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/../faulty-plugins")
        .lexically_normal()
        .string();

RunResult predict_csv(const std::string& arch) {
  return run_tilescope({"predict", "--arch", arch, "--workload", "samples/workloads/bert-base.yaml",
                        "--op", "qkv_proj", "--format", "csv"});
}

std::vector<std::string> lines_containing(const std::string& text, const std::string& part) {
  std::vector<std::string> found;
  for (const std::string& line : split_lines(text))
    if (line.find(part) != std::string::npos) found.push_back(line);
  return found;
}

}  // namespace

TEST_CASE("predict --arch profile:ascend/910b3 prints what the graph's path prints",
          "[cli][profile]") {
  ProfileEnvironment env("");
  struct Case {
    std::string reference, file;
  };
  for (const Case& c : {Case{"profile:ascend/910b3", "samples/arch/ascend910b3.yaml"},
                        Case{"profile:ascend", "samples/arch/ascend910b3.yaml"},  // default
                        Case{"profile:ascend/910b3-fitted", "samples/arch/ascend910b3-fitted.yaml"},
                        // Generated from its spec (plugins/nvidia/gpus/h200.spec.yaml).
                        Case{"profile:nvidia/h200", "plugins/nvidia/gpus/h200.yaml"},
                        Case{"profile:nvidia/l4", "plugins/nvidia/gpus/l4.yaml"}}) {
    INFO(c.reference);
    const RunResult by_file = predict_csv(c.file);
    const RunResult by_profile = predict_csv(c.reference);
    REQUIRE(by_file.status == 0);
    REQUIRE(by_profile.status == 0);
    CHECK(split_lines(by_profile.out).size() == 2);  // header and qkv_proj
    CHECK(by_profile.out == by_file.out);
  }
  // The fitted variant is another graph: its CSV differs from the datasheet graph's.
  CHECK(predict_csv("profile:ascend/910b3-fitted").out != predict_csv("profile:ascend").out);
}

TEST_CASE("profiles list shows the bundled profiles and where they came from", "[cli][profile]") {
  ProfileEnvironment env("");
  const RunResult r = run_tilescope({"profiles", "list"});
  REQUIRE(r.status == 0);
  for (const std::string name : {"amd", "ascend", "host", "nvidia", "systolic"}) {
    const auto rows = lines_containing(r.out, name + " ");
    REQUIRE_FALSE(rows.empty());
    CHECK_THAT(rows[0], Catch::Contains("plugins/" + name + "/profile.yaml (bundled)"));
  }
  CHECK_THAT(r.out, Catch::Contains("910b3 (default), 910b3-fitted (fitted)"));
  CHECK_THAT(r.out, Catch::Contains("a100 (default), a100-fitted (fitted), h100, h200"));
  CHECK(r.out.find("failed to load") == std::string::npos);

  const RunResult show = run_tilescope({"profiles", "show", "ascend"});
  REQUIRE(show.status == 0);
  CHECK_THAT(show.out, Catch::Contains("kind: data"));
  CHECK_THAT(show.out, Catch::Contains("910b3-fitted (fitted): ") &&
                           Catch::Contains("samples/arch/ascend910b3-fitted.yaml (graph "
                                           "ascend910b3)"));
  CHECK_THAT(show.out, Catch::Contains("ascend910b3-gemm-template.yaml"));
  const RunResult unknown = run_tilescope({"profiles", "show", "nope"});
  CHECK(unknown.status == 2);
  CHECK_THAT(unknown.err,
             Catch::StartsWith("profiles show: unknown profile 'nope'") &&
                 Catch::Contains("known profiles: amd, ascend, host, nvidia, systolic"));
}

TEST_CASE("a broken plugin is one line with its path and problem; the others still load",
          "[cli][profile]") {
  ProfileEnvironment env(kTestPlugins);
  const std::string plugins = TILESCOPE_TEST_PLUGIN_DIR;
  const RunResult r = run_tilescope({"profiles", "list"});
  REQUIRE(r.status == 0);
  // Still loaded: the bundled ones, the test data profile and the test code plugin.
  for (const char* name :
       {"ascend ", "host ", "nvidia ", "systolic ", "toy-data ", "toy-code ", "toy-hooked "})
    CHECK(lines_containing(r.out, name).size() >= 1);
  CHECK_THAT(r.out, Catch::Contains("failed to load (4):"));
  struct Expected {
    std::string path, problem;
  };
  for (const Expected& e :
       {Expected{plugins + "/libwrong-abi.so", "built for plugin ABI version 99"},
        Expected{plugins + "/libno-entry.so", "exports no `tilescope_profile` entry point"},
        Expected{fixture("profiles/code/libnotes.so"), "not a loadable shared library"},
        Expected{fixture("profiles/broken-graph/profile.yaml"), "bad-unit.yaml:8:"}}) {
    INFO(e.path);
    const auto lines = lines_containing(r.out, e.path + ": ");
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines[0], Catch::Contains(e.problem));
  }

  // A command that needs the broken one: exit 2, one line naming the path and the problem.
  const RunResult abi = predict_csv("profile:wrong-abi");
  CHECK(abi.status == 2);
  CHECK(split_lines(abi.err).size() == 1);
  CHECK_THAT(abi.err,
             Catch::Contains(plugins + "/libwrong-abi.so: built for plugin ABI version 99"));
  const RunResult graph = predict_csv("profile:broken-graph");
  CHECK(graph.status == 2);
  CHECK(split_lines(graph.err).size() == 1);
  CHECK_THAT(graph.err, Catch::Contains("bad-unit.yaml:8:"));
  // ... while a good one predicts beside them.
  const RunResult toy =
      run_tilescope({"predict", "--arch", "profile:toy-code", "--workload",
                     fixture("workload/tiny.yaml"), "--op", "qkv_proj", "--format", "csv"});
  CHECK(toy.status == 0);
  CHECK(split_lines(toy.out).size() == 2);
}

TEST_CASE("every option that takes a graph says in its help that a profile reference works",
          "[cli][profile]") {
  // A user reads `--help`, not docs/new-hardware.md: each of these options resolves
  // profile:NAME[/VARIANT] (ArchitectureReference), so each help must say so.
  struct Case {
    std::vector<std::string> command;
    std::string option;
  };
  for (const Case& c :
       {Case{{"predict"}, "--arch"}, Case{{"correlate"}, "--arch"}, Case{{"fit"}, "--arch"},
        Case{{"measure"}, "--arch"}, Case{{"validate"}, "--arch"}, Case{{"report"}, "--arch"},
        Case{{"calibrate"}, "--base"}, Case{{"simulate"}, "--cluster"}}) {
    std::vector<std::string> args = c.command;
    args.push_back("--help");
    const RunResult r = run_tilescope(args);
    INFO(c.command.front() << " " << c.option << "\n" << r.out);
    REQUIRE(r.status == 0);
    // The option's line and its continuation lines, up to the next option.
    const std::vector<std::string> lines = split_lines(r.out);
    std::string help;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].find("  " + c.option + " ") == std::string::npos) continue;
      help = lines[i];
      for (size_t j = i + 1; j < lines.size() && lines[j].find("  --") == std::string::npos; ++j)
        help += " " + lines[j];
      break;
    }
    CHECK(help.find("profile:NAME[/VARIANT]") != std::string::npos);
  }
}

TEST_CASE("a code plugin's cost hook slows the unit that names it, from the CLI",
          "[cli][profile][cost-hook]") {
  ProfileEnvironment env(TILESCOPE_TEST_PLUGIN_DIR);
  // toy-hooked-chip is toy-code-chip with `cost_hook: toy-hooked.fill` on its PE (m + n - 2
  // cycles of systolic fill per matmul call, CostHookPlugin.c); everything else is equal. The
  // hook can only add time, so the hooked graph is never faster, and the GEMM's PE calls fill.
  auto predict = [](const std::string& arch) {
    return run_tilescope({"predict", "--arch", arch, "--workload",
                          "samples/workloads/bert-base.yaml", "--op", "qkv_proj", "--format", "csv",
                          "--budget", "3000"});
  };
  // latency_us, the fourth column of the operator's row.
  auto latency_us = [](const RunResult& r) {
    const std::vector<std::string> lines = split_lines(r.out);
    REQUIRE(lines.size() == 2);
    std::string row = lines[1];
    for (int i = 0; i < 3; ++i) row = row.substr(row.find(',') + 1);
    return std::stod(row.substr(0, row.find(',')));
  };
  const RunResult plain = predict(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/toy-code-chip.yaml");
  const RunResult hooked = predict("profile:toy-hooked");
  INFO(plain.err << hooked.err);
  REQUIRE(plain.status == 0);
  REQUIRE(hooked.status == 0);
  CHECK(latency_us(hooked) > latency_us(plain));

  // The same graph file, read without the plugin on the search path: refused at its cost_hook.
  ProfileEnvironment without("");
  const RunResult refused =
      predict(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/toy-hooked-chip.yaml");
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::Contains("toy-hooked-chip.yaml:27:") &&
                              Catch::Contains("cost hook 'toy-hooked.fill'"));
}

TEST_CASE("a plugin that crashes, hangs or exits in its entry point is one line; the others load",
          "[cli][profile][plugin-check]") {
  ProfileEnvironment env(std::string(TILESCOPE_TEST_PLUGIN_DIR) + ":" + kFaultyPlugins);
  struct Faulty {
    std::string library, problem;
  };
  const std::vector<Faulty> faulty{
      {kFaultyPlugins + "/libcrash-entry.so", "crashed (SIGSEGV) in its entry point"},
      {kFaultyPlugins + "/libhang-entry.so", "hung in its entry point (no answer within 1 s"},
      {kFaultyPlugins + "/libexit-entry.so", "called exit() in its entry point"}};
  // Twice: checked in child processes the first time, from the cache the second.
  for (int run = 0; run < 2; ++run) {
    INFO("run " << run);
    const RunResult r = run_tilescope({"profiles", "list"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    for (const char* name : {"toy-code ", "toy-hooked ", "bad-hooks ", "ascend ", "nvidia "})
      CHECK(lines_containing(r.out, name).size() >= 1);
    // Exactly one line, on stdout or stderr, names each faulty library, and says what it did.
    for (const Faulty& f : faulty) {
      INFO(f.library);
      const auto lines = lines_containing(r.out + r.err, f.library);
      REQUIRE(lines.size() == 1);
      CHECK_THAT(lines[0], Catch::Contains(f.library + ": " + f.problem));
    }
    // and libwrong-abi.so and libno-entry.so, refused as before
    CHECK_THAT(r.out, Catch::Contains("failed to load (5):"));
    CHECK_THAT(r.out, Catch::Contains("the checks are kept in " + env.cache_file()));
  }
  const std::string cache = read_text(env.cache_file());
  CHECK_THAT(cache, Catch::Contains("libhang-entry.so") && Catch::Contains("faulty"));

  // A command that names the faulty one: its failure, exit 2.
  const RunResult named = run_tilescope({"profiles", "show", "crash-entry"});
  CHECK(named.status == 2);
  CHECK_THAT(named.err, Catch::Contains("profile 'crash-entry' did not load: " + kFaultyPlugins +
                                        "/libcrash-entry.so: crashed (SIGSEGV)"));
}

TEST_CASE("a command loads only the plugins it uses", "[cli][profile][plugin-check]") {
  ProfileEnvironment env(std::string(TILESCOPE_TEST_PLUGIN_DIR) + ":" + kFaultyPlugins);
  ::setenv("TILESCOPE_PLUGIN_TRACE", "1", 1);  // a line before each call into a plugin
  // No profile named: no plugin checked, none called, nothing cached.
  const RunResult plain = predict_csv("samples/arch/ascend910b3.yaml");
  CHECK(plain.status == 0);
  CHECK(plain.err == "");
  CHECK_FALSE(std::filesystem::exists(env.cache_file()));

  // profile:toy-code: every plugin is checked (in a child), the faulty ones are one line each on
  // stderr, and none is called in tilescope's own process (toy-code's graph needs no code).
  const RunResult toy =
      run_tilescope({"predict", "--arch", "profile:toy-code", "--workload",
                     fixture("workload/tiny.yaml"), "--op", "qkv_proj", "--format", "csv"});
  INFO(toy.err);
  CHECK(toy.status == 0);
  CHECK(split_lines(toy.out).size() == 2);
  CHECK(lines_containing(toy.err, "calling plugin").empty());
  const auto skipped = lines_containing(toy.err, "; skipped");
  CHECK(skipped.size() == 3);
  for (const std::string library : {"libcrash-entry.so", "libhang-entry.so", "libexit-entry.so"})
    CHECK(std::count_if(skipped.begin(), skipped.end(), [&](const std::string& line) {
            return line.find(kFaultyPlugins + "/" + library + " ") != std::string::npos;
          }) == 1);
  // The checks themselves were announced, each library once, all of them in child processes.
  CHECK(lines_containing(toy.err, "in a child process").size() == 8);

  // profile:toy-hooked: its graph's PE names a hook, so its library (and only it) is opened here.
  const RunResult hooked =
      run_tilescope({"predict", "--arch", "profile:toy-hooked", "--workload",
                     fixture("workload/tiny.yaml"), "--op", "qkv_proj", "--format", "csv"});
  INFO(hooked.err);
  CHECK(hooked.status == 0);
  const auto calls = lines_containing(hooked.err, "calling plugin");
  REQUIRE_FALSE(calls.empty());
  for (const std::string& line : calls)
    CHECK_THAT(line, Catch::Contains(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/libhooked.so"));

  // import msprof reads the ascend profile's kernel rules: the faulty plugins cost it one line
  // each, and it imports as without them.
  ts::test::TempDir dir("msprof-faulty");
  const RunResult msprof =
      run_tilescope({"import", "msprof", "tests/fixtures/trace/msprof/op_summary_cann8.csv", "--db",
                     dir / "db.sqlite"});
  INFO(msprof.err);
  CHECK(msprof.status == 0);
  CHECK(msprof.out == "run 1 msprof kernels device: 4 measurements\n");
  CHECK(lines_containing(msprof.err, "; skipped").size() == 3);
}

TEST_CASE("a cost hook answering infinity is an error naming the plugin and the hook",
          "[cli][profile][cost-hook]") {
  ProfileEnvironment env(kFaultyPlugins);
  // toy-hooked-chip.yaml with its PE's hook replaced by one of libbad-hooks.so's.
  ts::test::TempDir dir("bad-hook-graph");
  std::string graph = read_text(std::string(TILESCOPE_TEST_PLUGIN_DIR) + "/toy-hooked-chip.yaml");
  graph.replace(graph.find("toy-hooked.fill"), std::string("toy-hooked.fill").size(),
                "bad-hooks.inf");
  const std::string file = dir / "bad-hooked-chip.yaml";
  std::ofstream(file) << graph;
  const RunResult r = predict_csv(file);
  INFO(r.err);
  CHECK(r.status == 2);
  const auto lines = lines_containing(r.err, "cost hook bad-hooks.inf");
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::Contains(kFaultyPlugins + "/libbad-hooks.so: cost hook "
                                                        "bad-hooks.inf of this plugin answered "
                                                        "infinity seconds"));
  CHECK(r.err.find("overflow") == std::string::npos);
}
