// The conventions a new user leans on from the first command: a mistyped command is named, with
// the commands there are and the nearest one; every option that takes a graph says that a
// profile (profile:NAME[/VARIANT]) will do, in the same words; `profiles list` and `validate`
// print JSON for scripts as the other commands do.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using nlohmann::json;

namespace {

// The help of `option` in `tilescope WORDS --help`: its line, and the next when CLI11 put the
// description there.
std::string option_help_line(std::vector<std::string> words, const std::string& option) {
  words.push_back("--help");
  const RunResult r = run_tilescope(words);
  INFO(r.command << "\n" << r.err);
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind("  " + option + " ", 0) == 0) {
      // A long option and default put the description on the next line, indented.
      const bool wrapped = i + 1 < lines.size() && lines[i + 1].rfind("     ", 0) == 0;
      return wrapped ? lines[i] + lines[i + 1] : lines[i];
    }
  FAIL("no line for " << option << " in:\n" << r.out);
  return {};
}

}  // namespace

TEST_CASE("an unknown command is named, with the commands and the nearest", "[cli][conventions]") {
  const RunResult typo = run_tilescope({"corelate", "--db", "x.sqlite"});
  CHECK(typo.status == 2);
  CHECK(typo.out.empty());
  const std::vector<std::string> lines = split_lines(typo.err);
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("tilescope: unknown command 'corelate' (commands: "));
  CHECK_THAT(lines[0], Catch::Contains("predict, compare, validate"));
  CHECK_THAT(lines[0], Catch::EndsWith("; did you mean 'correlate'?"));
  CHECK_THAT(typo.err, !Catch::Contains("A subcommand is required"));

  // The start of a command is offered as it.
  CHECK_THAT(run_tilescope({"sim"}).err, Catch::Contains("did you mean 'simulate'?"));
  // Nothing near: the list alone.
  const RunResult far = run_tilescope({"frobnicate"});
  CHECK(far.status == 2);
  CHECK_THAT(far.err, Catch::StartsWith("tilescope: unknown command 'frobnicate' (commands: "));
  CHECK_THAT(far.err, !Catch::Contains("did you mean"));
  // A known command is not judged here: its own errors stay CLI11's.
  CHECK_THAT(run_tilescope({"predict"}).err, !Catch::Contains("unknown command"));
}

TEST_CASE("every option that takes a graph or a cluster says profile:NAME will do",
          "[cli][conventions]") {
  const std::vector<std::pair<std::vector<std::string>, std::string>> options = {
      {{"predict"}, "--arch"},
      {{"compare"}, "--arch"},
      {{"validate"}, "--arch"},
      {{"calibrate"}, "--base"},
      {{"measure"}, "--arch"},
      {{"correlate"}, "--arch"},
      {{"fit"}, "--arch"},
      {{"simulate"}, "--cluster"},
      {{"sweep"}, "--arch"},
      {{"sweep"}, "--cluster"},
      {{"trace", "predict"}, "--arch"},
      {{"trace", "predict"}, "--on"},
      {{"import", "runner"}, "--arch"},
      {{"import", "kineto"}, "--arch"},
      {{"import", "nsys"}, "--arch"},
      {{"report"}, "--arch"},
      {{"report"}, "--on"},
  };
  for (const auto& [words, option] : options) {
    const std::string line = option_help_line(words, option);
    INFO(line);
    CHECK_THAT(line, Catch::Contains("profile:NAME[/VARIANT]"));
  }
  // One text for all: the graph options say it in the same words.
  CHECK_THAT(option_help_line({"predict"}, "--arch"),
             Catch::Contains("a kind: architecture file or profile:NAME[/VARIANT] (`tilescope "
                             "profiles list`)"));
  CHECK_THAT(option_help_line({"import", "kineto"}, "--arch"),
             Catch::Contains("a kind: architecture file or profile:NAME[/VARIANT] (`tilescope "
                             "profiles list`)"));
}

TEST_CASE("profiles list --format json lists what the text lists", "[cli][conventions][profiles]") {
  const RunResult text = run_tilescope({"profiles", "list"});
  const RunResult r = run_tilescope({"profiles", "list", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  REQUIRE(text.status == 0);
  const json j = json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  REQUIRE(j["profiles"].size() >= 3);
  for (const json& p : j["profiles"]) {
    const std::string name = p["name"];
    INFO(name);
    CHECK_THAT(text.out, Catch::Contains(name));  // every profile is one the text names
    REQUIRE(p["variants"].size() >= 1);
    size_t defaults = 0;
    for (const json& v : p["variants"]) defaults += v["default"].get<bool>() ? 1 : 0;
    CHECK(defaults == 1);
  }
  CHECK(j["search_path"].size() >= 1);
  CHECK(j["failures"].is_array());
  const RunResult bad = run_tilescope({"profiles", "list", "--format", "yaml"});
  CHECK(bad.status == 2);
}

TEST_CASE("validate --format json gives every file's verdict", "[cli][conventions][validate]") {
  ts::test::TempDir dir;
  const std::string missing = dir / "missing.yaml";
  const RunResult r =
      run_tilescope({"validate", "samples/arch/nvidia-h100.yaml",
                     "samples/workloads/bert-base.yaml", missing, "--format", "json"});
  CHECK(r.status == 2);  // one file is not there: as in the text format
  CHECK_THAT(r.err, Catch::Contains(missing));
  const json j = json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  REQUIRE(j["files"].size() == 3);
  CHECK(j["files"][0]["file"] == "samples/arch/nvidia-h100.yaml");
  CHECK(j["files"][0]["ok"] == true);
  CHECK(j["files"][0]["kind"] == "architecture");
  CHECK(j["files"][1]["kind"] == "workload");
  CHECK(j["files"][2]["ok"] == false);
  CHECK_THAT(j["files"][2]["error"].get<std::string>(), Catch::Contains(missing));
  // The text format's line and the JSON's summary are the same words.
  const RunResult text = run_tilescope({"validate", "samples/arch/nvidia-h100.yaml"});
  REQUIRE(text.status == 0);
  CHECK(text.out == "samples/arch/nvidia-h100.yaml: ok (" +
                        j["files"][0]["summary"].get<std::string>() + ")\n");
}
