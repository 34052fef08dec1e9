// The workspace loader and writer (core/common/WorkspaceFile): every refusal at the line and
// column of the fault, paths resolved against the workspace's folder, workspaces that name
// themselves or each other refused without recursion, and a written workspace loading back.
// Columns are counted by hand from the text: `architecture: ` is 14 characters, so its value
// starts at column 15; `workload: ` 10 (column 11); `results: ` 9 (10); `simulation: ` 12 (13).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "common/WorkspaceFile.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

namespace fs = std::filesystem;

void write_text(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A workspace text whose members lie in tests/fixtures: parsed as if it were a file there.
Workspace parse_among_fixtures(const std::string& text) {
  return parse_workspace(text, fixture("workspaces/inline.yaml"));
}

std::string normal(const std::string& path) { return fs::path(path).lexically_normal().string(); }

}  // namespace

TEST_CASE("a workspace resolves its members against its own folder", "[workspace]") {
  test::TempDir dir("workspace");
  write_text(dir / "arch/a.yaml", "not read by the workspace loader\n");
  write_text(dir / "suites/s.yaml", "");
  write_text(dir / "ws/w.yaml",
             "version: 1\nkind: workspace\narchitecture: ../arch/a.yaml\nworkload: "
             "../suites/s.yaml\n");
  const Workspace w = load_workspace(dir / "ws/w.yaml");
  REQUIRE(w.architecture);
  // ws/ + ../arch/a.yaml = arch/a.yaml, beside ws/.
  CHECK(w.architecture->path == normal(dir / "arch/a.yaml"));
  CHECK(w.architecture->where.file == dir / "ws/w.yaml");
  CHECK(w.architecture->where.line == 3);
  CHECK(w.architecture->where.column == 15);
  REQUIRE(w.workload);
  CHECK(w.workload->path == normal(dir / "suites/s.yaml"));
  CHECK(w.workload->where.line == 4);
  CHECK(w.workload->where.column == 11);
  CHECK_FALSE(w.results);
  CHECK_FALSE(w.simulation);
}

TEST_CASE("a workspace member that is not a path is refused at its place", "[workspace]") {
  InputError list = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\narchitecture: [a]\n"); });
  CHECK(list.where().line == 3);
  CHECK(list.where().column == 15);
  CHECK(list.message() == "expected a path for `architecture`, got a list");

  // A block map starts at its first key: line 4, column 3.
  InputError map = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\nworkload:\n  path: x.yaml\n"); });
  CHECK(map.where().line == 4);
  CHECK(map.where().column == 3);
  CHECK(map.message() == "expected a path for `workload`, got a map");

  InputError sequence = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\nresults:\n  - r.csv\n"); });
  CHECK(sequence.where().line == 4);
  CHECK(sequence.where().column == 3);
  CHECK(sequence.message() == "expected a path for `results`, got a list");

  InputError flow_map = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\nsimulation: {file: s.json}\n"); });
  CHECK(flow_map.where().line == 3);
  CHECK(flow_map.where().column == 13);
  CHECK(flow_map.message() == "expected a path for `simulation`, got a map");

  InputError number =
      input_error_of([] { parse_among_fixtures("version: 1\nkind: workspace\nresults: 42\n"); });
  CHECK(number.where().line == 3);
  CHECK(number.where().column == 10);
  CHECK(number.message() ==
        "expected a path for `results`, got '42' (a number or true/false; quote it if a file "
        "has that name)");

  InputError boolean =
      input_error_of([] { parse_among_fixtures("version: 1\nkind: workspace\nworkload: true\n"); });
  CHECK(boolean.where().column == 11);

  // yaml-cpp places an empty value on the next line: it is reported at its key, line 3 column 1.
  InputError nothing =
      input_error_of([] { parse_among_fixtures("version: 1\nkind: workspace\nworkload:\n"); });
  CHECK(nothing.where().line == 3);
  CHECK(nothing.where().column == 1);
  CHECK(nothing.message() == "expected a path for `workload`, got nothing");
}

TEST_CASE("a workspace's header and keys are checked like every input's", "[workspace]") {
  InputError unknown = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\nworklaod: x.yaml\n"); });
  CHECK(unknown.where().line == 3);
  CHECK(unknown.where().column == 1);
  CHECK(unknown.message() ==
        "unknown key 'worklaod' in the workspace; expected one of: version, kind, architecture, "
        "workload, results, simulation");

  InputError kind = input_error_of([] { parse_among_fixtures("version: 1\nkind: workload\n"); });
  CHECK(kind.where().line == 2);
  CHECK(kind.where().column == 7);
  CHECK(kind.message() == "wrong kind 'workload'; expected `kind: workspace`");

  InputError no_kind = input_error_of([] { parse_among_fixtures("version: 1\n"); });
  CHECK(no_kind.message() == "missing `kind: workspace`");

  InputError empty = input_error_of([] { parse_among_fixtures(""); });
  CHECK(empty.where().line == 1);
  CHECK(empty.message() == "empty file; expected `version: 1` and `kind: workspace`");

  // A YAML syntax error: the unclosed flow list of line 3 is reported where the parser gave up.
  InputError syntax = input_error_of(
      [] { parse_among_fixtures("version: 1\nkind: workspace\narchitecture: [a\n"); });
  CHECK(syntax.where().line >= 3);
  CHECK(syntax.message().rfind("invalid YAML: ", 0) == 0);

  // One byte past the limit is refused before it is parsed.
  const std::string huge =
      "version: 1\nkind: workspace\n#" + std::string(kWorkspaceMaxBytes - 28, 'x') + "\n";
  REQUIRE(huge.size() == kWorkspaceMaxBytes + 1);
  InputError too_large = input_error_of([&] { parse_among_fixtures(huge); });
  CHECK(too_large.where().line == 1);
  CHECK(too_large.message() ==
        "a workspace names four paths in at most 65536 bytes; this file "
        "has 65537");
}

TEST_CASE("a workspace member that does not exist is refused at its path", "[workspace]") {
  InputError e = input_error_of([] { load_workspace(fixture("workspaces/missing-member.yaml")); });
  CHECK(e.where().line == 3);
  CHECK(e.where().column == 11);
  CHECK(e.message().rfind("workload '../workload/no-such-suite.yaml' not found", 0) == 0);
}

TEST_CASE("a workspace that names itself, or one naming it back, is refused", "[workspace]") {
  test::TempDir dir("workspace");
  // A cycle of one: `results: self.yaml` in self.yaml.
  const std::string self = dir / "self.yaml";
  write_text(self, "version: 1\nkind: workspace\nresults: self.yaml\n");
  InputError one = input_error_of([&] { load_workspace(self); });
  CHECK(one.where().line == 3);
  CHECK(one.where().column == 10);
  CHECK(one.message() == "workspace '" + self + "' names itself as its results");

  // A cycle of two: a.yaml names b/b.yaml, which names ../a.yaml back. Each is refused at its
  // own member, naming the other; neither is opened from the other.
  const std::string a = dir / "a.yaml", b = dir / "b/b.yaml";
  write_text(a, "version: 1\nkind: workspace\nworkload: b/b.yaml\n");
  write_text(b, "version: 1\nkind: workspace\narchitecture: ../a.yaml\n");
  InputError from_a = input_error_of([&] { load_workspace(a); });
  CHECK(from_a.where().line == 3);
  CHECK(from_a.where().column == 11);
  CHECK(from_a.message() == "workspace '" + a + "' includes itself through b/b.yaml");
  InputError from_b = input_error_of([&] { load_workspace(b); });
  CHECK(from_b.where().line == 3);
  CHECK(from_b.where().column == 15);
  CHECK(from_b.message() == "workspace '" + b + "' includes itself through ../a.yaml");

  // A workspace naming another that does not name it back: still refused, workspaces do not
  // nest (the one named opens on its own).
  const std::string outer = dir / "outer.yaml";
  write_text(outer, "version: 1\nkind: workspace\nsimulation: self.yaml\n");
  InputError nested = input_error_of([&] { load_workspace(outer); });
  CHECK(nested.where().column == 13);
  CHECK(nested.message() ==
        "simulation 'self.yaml' is a workspace; a workspace names architecture, workload, "
        "results and simulation files, not other workspaces");
}

TEST_CASE("the committed broken workspaces are refused at their place", "[workspace]") {
  struct Case {
    const char* file;
    int line, column;
    const char* message_start;
  };
  const Case cases[] = {
      {"architecture-list.yaml", 3, 15, "expected a path for `architecture`, got a list"},
      {"workload-map.yaml", 4, 3, "expected a path for `workload`, got a map"},
      {"results-list.yaml", 5, 3, "expected a path for `results`, got a list"},
      {"simulation-map.yaml", 3, 13, "expected a path for `simulation`, got a map"},
      {"architecture-number.yaml", 3, 15, "expected a path for `architecture`, got '42'"},
      {"unknown-key.yaml", 4, 1, "unknown key 'worklaod' in the workspace"},
      {"wrong-kind.yaml", 2, 7, "wrong kind 'workload'; expected `kind: workspace`"},
      {"empty.yaml", 1, 1, "empty file; expected `version: 1` and `kind: workspace`"},
      {"missing-member.yaml", 3, 11, "workload '../workload/no-such-suite.yaml' not found"},
      {"self.yaml", 4, 10, "workspace '"},
      {"cycle-a.yaml", 3, 11, "workspace '"},
      {"cycle-b.yaml", 3, 13, "workspace '"},
      {"nested.yaml", 3, 15, "architecture 'good.yaml' is a workspace"},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    const std::string path = fixture(std::string("workspaces/") + c.file);
    InputError e = input_error_of([&] { load_workspace(path); });
    CHECK(e.where().file == path);
    CHECK(e.where().line == c.line);
    CHECK(e.where().column == c.column);
    CHECK(e.message().rfind(c.message_start, 0) == 0);
  }
  CHECK(input_error_of([] { load_workspace(fixture("workspaces/self.yaml")); }).message() ==
        "workspace '" + fixture("workspaces/self.yaml") + "' names itself as its results");
  CHECK(input_error_of([] { load_workspace(fixture("workspaces/cycle-a.yaml")); }).message() ==
        "workspace '" + fixture("workspaces/cycle-a.yaml") +
            "' includes itself through "
            "cycle-b.yaml");
  const Workspace good = load_workspace(fixture("workspaces/good.yaml"));
  REQUIRE(good.results);
  CHECK(good.results->path == normal(fixture("csv/gemm-small.csv")));
}

TEST_CASE("a written workspace loads back the same paths", "[workspace]") {
  test::TempDir dir("workspace");
  write_text(dir / "arch/a.yaml", "");
  write_text(dir / "runs/42", "");        // a file whose name reads as a number in YAML
  write_text(dir / "sim/x: y.json", "");  // a colon and a blank: quoted by the emitter
  Workspace w;
  w.architecture = WorkspaceMember{dir / "arch/a.yaml", {}};
  w.results = WorkspaceMember{dir / "runs/42", {}};
  w.simulation = WorkspaceMember{dir / "sim/x: y.json", {}};
  const std::string saved = dir / "ws/w.yaml";
  fs::create_directories(dir / "ws");
  write_workspace(w, saved);
  const std::string text = read_text(saved);
  // From ws/: one folder up, then into each member's folder.
  CHECK(text.find("\narchitecture: ../arch/a.yaml\n") != std::string::npos);
  CHECK(text.find("\nresults: ../runs/42\n") != std::string::npos);
  CHECK(text.find("workload") == std::string::npos);
  const Workspace back = load_workspace(saved);
  REQUIRE(back.architecture);
  CHECK(back.architecture->path == normal(dir / "arch/a.yaml"));
  REQUIRE(back.results);
  CHECK(back.results->path == normal(dir / "runs/42"));
  REQUIRE(back.simulation);
  CHECK(back.simulation->path == normal(dir / "sim/x: y.json"));
  CHECK_FALSE(back.workload);

  // Saved beside the member, the path is the bare `42`, which YAML reads as a number unless
  // quoted: the writer quotes it.
  const std::string beside = dir / "runs/w.yaml";
  Workspace only_results;
  only_results.results = w.results;
  write_workspace(only_results, beside);
  CHECK(read_text(beside).find("\nresults: \"42\"\n") != std::string::npos);
  REQUIRE(load_workspace(beside).results);
  CHECK(load_workspace(beside).results->path == normal(dir / "runs/42"));
}
