// The output guard (common/OutputPath.hpp): an output is never an input, nor another output, in
// whatever spelling of the path; what names no file is skipped.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "common/InputError.hpp"
#include "common/OutputPath.hpp"

namespace {

namespace fs = std::filesystem;
using ts::NamedPath;
using ts::refuse_outputs_over_inputs;

void write_guard_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The one line the guard throws, or "" when it lets the command run.
std::string guard_error(const std::vector<NamedPath>& outputs,
                        const std::vector<NamedPath>& inputs) {
  try {
    refuse_outputs_over_inputs(outputs, inputs);
  } catch (const ts::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("output guard: an output over an input is refused, naming both options",
          "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string db = dir / "runs.sqlite";
  write_guard_file(db, "the runs");
  const ts::InputError e = ts::test::input_error_of([&] {
    refuse_outputs_over_inputs({{"--out", db}}, {{"--db", db}});
  });
  CHECK(e.where().file == "--out");
  CHECK(std::string(e.what()) == "--out: '" + db + "' is the same file as --db '" + db +
                                     "'; a command never writes over its own input: give --out "
                                     "another file");
}

TEST_CASE("output guard: the same file in any spelling", "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string input = dir / "model.yaml";
  write_guard_file(input, "kind: model\n");
  fs::create_directory(dir.path() / "sub");

  SECTION("through `.` and `..`") {
    const std::string out = (dir.path() / "sub" / ".." / "." / "model.yaml").string();
    CHECK_THAT(guard_error({{"--out", out}}, {{"--model", input}}),
               Catch::StartsWith("--out: '" + out + "' is the same file as --model '" + input));
  }
  SECTION("through a symbolic link to the file") {
    const std::string link = dir / "link.yaml";
    fs::create_symlink(input, link);
    CHECK_THAT(guard_error({{"--out", link}}, {{"--model", input}}),
               Catch::Contains("is the same file as --model"));
  }
  SECTION("through a hard link") {
    const std::string hard = dir / "hard.yaml";
    fs::create_hard_link(input, hard);
    CHECK_THAT(guard_error({{"--timeline", hard}}, {{"--model", input}}),
               Catch::StartsWith("--timeline: '" + hard + "' is the same file as --model"));
  }
  SECTION("through a symbolically linked folder") {
    fs::create_directory_symlink(dir.path(), dir.path() / "alias");
    const std::string out = (dir.path() / "alias" / "model.yaml").string();
    CHECK_THAT(guard_error({{"--out", out}}, {{"--model", input}}),
               Catch::Contains("is the same file as --model"));
  }
  SECTION("a relative spelling of an absolute path") {
    const fs::path here = fs::current_path();
    fs::current_path(dir.path());
    const std::string error = guard_error({{"--out", "model.yaml"}}, {{"--model", input}});
    fs::current_path(here);
    CHECK_THAT(error, Catch::StartsWith("--out: 'model.yaml' is the same file as --model"));
  }
}

TEST_CASE("output guard: outputs that are not there yet are compared by where they would be",
          "[output-guard]") {
  ts::test::TempDir dir("guard");
  fs::create_directory(dir.path() / "sub");
  const std::string a = dir / "new.json";
  const std::string b = (dir.path() / "sub" / ".." / "new.json").string();
  REQUIRE_FALSE(fs::exists(a));
  // Two outputs into one file: the second write would replace the first.
  CHECK(guard_error({{"--out", a}, {"--timeline", b}}, {}) ==
        "--timeline: '" + b + "' is the same file as --out '" + a +
            "'; each output is a file of its own: give --timeline another file");
  // Through a symbolically linked folder, the file in neither place yet.
  fs::create_directory_symlink(dir.path() / "sub", dir.path() / "alias");
  CHECK_FALSE(guard_error({{"--out", dir / "sub/x.json"}, {"--timeline", dir / "alias/x.json"}}, {})
                  .empty());
  // A folder spelt with a trailing separator is the folder.
  CHECK_FALSE(guard_error({{"--figures", dir / "figs/"}}, {{"--sweep", dir / "figs"}}).empty());
  CHECK(guard_error({{"--out", a}, {"--timeline", dir / "other.json"}}, {}).empty());
}

TEST_CASE("output guard: distinct files pass", "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string input = dir / "in.yaml", existing = dir / "old-report.html";
  write_guard_file(input, "x");
  write_guard_file(existing, "an older report, replaced on purpose");
  CHECK(guard_error({{"--out", existing}, {"--figures", dir / "figures"}},
                    {{"--db", input}, {"--arch", dir / "missing.yaml"}})
            .empty());
  // Two files of the same contents are still two files.
  const std::string copy = dir / "copy.yaml";
  write_guard_file(copy, "x");
  CHECK(guard_error({{"--out", copy}}, {{"--arch", input}}).empty());
}

TEST_CASE("output guard: stdout, profiles and options not given name no file", "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string input = dir / "in.yaml";
  write_guard_file(input, "x");
  CHECK_FALSE(ts::names_a_file(""));
  CHECK_FALSE(ts::names_a_file("-"));
  CHECK_FALSE(ts::names_a_file("profile:nvidia/h100-sxm"));
  CHECK(ts::names_a_file("a.yaml"));
  CHECK(guard_error({{"--out", "-"}, {"--timeline", "-"}}, {{"--model", "-"}}).empty());
  CHECK(guard_error({{"--out", ""}, {"--timeline", ""}}, {{"--db", ""}}).empty());
  CHECK(guard_error({{"--out", "profile:host"}}, {{"--base", "profile:host"}}).empty());
  CHECK(guard_error({{"--out", input}}, {{"--arch", "profile:host"}, {"--db", ""}}).empty());
}

TEST_CASE("output guard: a file read and written is itself, and no other input or output",
          "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string db = dir / "runs.sqlite", trace = dir / "trace.json";
  write_guard_file(db, "SQLite format 3");
  write_guard_file(trace, "{}");
  // `import kineto TRACE --db DB`: the database is read and added to.
  CHECK(guard_error({{"--db", db}}, {{"FILE", trace}, {"--db", db}}).empty());
  // ... but not the trace, and no other output goes into it.
  CHECK_THAT(guard_error({{"--db", trace}}, {{"FILE", trace}, {"--db", trace}}),
             Catch::StartsWith("--db: '" + trace + "' is the same file as FILE '" + trace));
  CHECK_THAT(guard_error({{"--db", db}, {"--workload-out", db}}, {{"FILE", trace}, {"--db", db}}),
             Catch::StartsWith("--workload-out: '" + db + "' is the same file as --db '" + db +
                               "'; a command never writes over its own input"));
}

TEST_CASE("output guard: an output folder is refused over an input of its path", "[output-guard]") {
  ts::test::TempDir dir("guard");
  const std::string mapping = dir / "mapping.yaml";
  write_guard_file(mapping, "kind: mapping\n");
  CHECK_THAT(guard_error({{"--save-mappings", mapping}}, {{"--mapping", mapping}}),
             Catch::StartsWith("--save-mappings: '" + mapping + "' is the same file as --mapping"));
  // A file in the folder is not the folder (the command checks the names it writes there).
  CHECK(guard_error({{"--save-mappings", dir.path().string()}}, {{"--mapping", mapping}}).empty());
  // tilescope-gui says the rule of itself.
  CHECK_THAT(
      [&] {
        try {
          ts::refuse_output_over_inputs({"the CSV export", mapping}, {{"the graph", mapping}},
                                        "tilescope-gui never writes over a file it has open");
        } catch (const ts::InputError& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      Catch::Equals("the CSV export: '" + mapping + "' is the same file as the graph '" + mapping +
                    "'; tilescope-gui never writes over a file it has open: give the CSV export "
                    "another file"));
}
