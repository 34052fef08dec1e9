// `tilescope sweep` never does nothing silently (issue 41): every command docs/sweep.md shows is
// run as the page writes it (read from the page's text, so page and test cannot drift) and each
// of its axes must change the result, or, where the page shows the warning the command prints,
// the command must print exactly that; a capped axis on the H200 gets one warning naming the
// cap; --cost and --format json say what they promise; a strategy grid names its collinear dp.
#include <fmt/format.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

// One command of the page: its words as a shell would split them (quotes removed), and the
// warning lines the page shows under it.
struct DocCommand {
  std::vector<std::string> words;
  std::vector<std::string> warnings;
  std::string text;     // as written, for messages
  bool script = false;  // a sample script's sweep: run at the script's own budget
};

std::vector<std::string> doc_shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

// The `--arch`, `--workload`, `--vary` and `--budget` words of a sample script.
std::vector<std::string> doc_script_words(const std::string& script) {
  const std::string text = read_text(root_path(script));
  std::vector<std::string> words{"sweep"};
  const std::regex option(R"((--arch|--workload|--vary|--budget) +([^ \\\n]+))");
  for (std::sregex_iterator it(text.begin(), text.end(), option), end; it != end; ++it) {
    words.push_back((*it)[1]);
    words.push_back((*it)[2]);
  }
  return words;
}

// Every runnable sweep of the page: `tilescope sweep ...` and `scripts/mpirun-sweep N ...` (run
// here as the one process it shares out), and sample scripts; a command with "..." in it is a
// sketch, not a command.
std::vector<DocCommand> doc_commands() {
  std::istringstream in(read_text(root_path("docs/sweep.md")));
  std::vector<DocCommand> out;
  std::string line;
  bool fenced = false;
  DocCommand* last = nullptr;
  while (std::getline(in, line)) {
    const std::string trimmed = std::regex_replace(line, std::regex("^ +"), "");
    if (trimmed.rfind("```", 0) == 0) {
      fenced = !fenced;
      last = nullptr;
      continue;
    }
    if (!fenced) continue;
    if (last && trimmed.rfind("warning: ", 0) == 0) {
      last->warnings.push_back(trimmed);
      continue;
    }
    std::string command = trimmed;
    while (!command.empty() && command.back() == '\\' && std::getline(in, line))
      command = command.substr(0, command.size() - 1) + " " +
                std::regex_replace(line, std::regex("^ +"), "");
    if (command.find("...") != std::string::npos) continue;
    std::vector<std::string> words = doc_shell_words(command);
    if (words.size() > 2 && words[0] == "tilescope" && words[1] == "sweep") {
      words.erase(words.begin());
    } else if (words.size() > 2 && words[0] == "scripts/mpirun-sweep") {
      words.erase(words.begin(), words.begin() + 2);
      words.insert(words.begin(), "sweep");
    } else {
      const auto script = std::find_if(words.begin(), words.end(), [](const std::string& w) {
        return w.rfind("samples/sweeps/", 0) == 0;
      });
      if (script == words.end()) continue;
      out.push_back({doc_script_words(*script), {}, command, true});
      last = &out.back();
      continue;
    }
    out.push_back({words, {}, command, false});
    last = &out.back();
  }
  return out;
}

// The command's varied parameters, as its points store them.
std::vector<std::string> doc_axes(const std::vector<std::string>& words) {
  std::vector<std::string> axes;
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "--vary") axes.push_back(words[i + 1].substr(0, words[i + 1].find('=')));
    if (words[i] == "--strategy-grid")
      for (size_t j = i + 1; j < words.size() && words[j].rfind("--", 0) != 0; ++j) {
        const std::string key = words[j].substr(0, words[j].find('='));
        axes.push_back(key == "mbs" ? "micro-batch" : key);
      }
  }
  return axes;
}

struct DocPoint {
  nlohmann::json parameters;
  double total_s = 0;
  std::optional<double> energy_j;
};

std::vector<DocPoint> doc_points(const std::string& db) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, "SELECT parameters_json, total_s, energy_j FROM sweep_points", -1,
                             &s, nullptr) == SQLITE_OK);
  std::vector<DocPoint> points;
  while (sqlite3_step(s) == SQLITE_ROW) {
    DocPoint p;
    p.parameters = nlohmann::json::parse(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
    p.total_s = sqlite3_column_double(s, 1);
    if (sqlite3_column_type(s, 2) != SQLITE_NULL) p.energy_j = sqlite3_column_double(s, 2);
    points.push_back(p);
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return points;
}

bool doc_differ(double a, double b) { return std::abs(a - b) > 1e-9 * std::max(a, b); }

// Whether two points that differ in `axis` alone among `axes` (a grid's dp follows tp and pp)
// differ in time, or else in energy.
std::pair<bool, bool> doc_axis_moves(const std::vector<DocPoint>& points,
                                     const std::vector<std::string>& axes,
                                     const std::string& axis) {
  bool time = false, energy = false;
  for (const DocPoint& a : points)
    for (const DocPoint& b : points) {
      if (a.parameters.at(axis) == b.parameters.at(axis)) continue;
      bool others_equal = true;
      for (const std::string& other : axes)
        if (other != axis && a.parameters.at(other) != b.parameters.at(other)) others_equal = false;
      if (!others_equal) continue;
      time = time || doc_differ(a.total_s, b.total_s);
      energy = energy || (a.energy_j && b.energy_j && doc_differ(*a.energy_j, *b.energy_j));
    }
  return {time, energy};
}

void run_doc_command(const DocCommand& c) {
  TempDir dir;
  const std::string db = dir / "doc.sqlite";
  std::vector<std::string> args = c.words;
  bool has_db = false, has_budget = false, has_arch = false, has_summary = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--db" && i + 1 < args.size()) {
      args[i + 1] = db;
      has_db = true;
    }
    has_budget = has_budget || args[i] == "--budget";
    has_arch = has_arch || args[i] == "--arch";
    has_summary = has_summary || args[i] == "--summary";
  }
  if (!has_db) args.insert(args.end(), {"--db", db});
  // The page's commands at the tests' budget: a budget of 1000 ranks the Ascend example's
  // points as the default budget does, at a fiftieth of the time. A sample script runs as it
  // is (the Eyeriss buffers' energy needs the mapper's full search to show).
  if (has_arch && !has_budget && !c.script) args.insert(args.end(), {"--budget", "1000"});
  if (!has_summary) args.push_back("--summary");
  args.insert(args.end(), {"--format", "json"});
  const RunResult r = run_tilescope(args, 600);
  INFO("page: " << c.text << "\nran: " << r.command << "\nstdout: " << r.out
                << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json out = nlohmann::json::parse(r.out);
  std::vector<std::string> axis_warnings;
  for (const auto& warning : out.at("warnings")) {
    const std::string w = warning.get<std::string>();
    if (w.find(" --vary ") != std::string::npos || w.find(" --strategy-grid ") != std::string::npos)
      axis_warnings.push_back(w);
  }
  if (!c.warnings.empty()) {
    // The page shows what the command warns of: exactly that.
    CHECK(axis_warnings == c.warnings);
    return;
  }
  const std::vector<std::string> axes = doc_axes(c.words);
  REQUIRE_FALSE(axes.empty());
  const std::vector<DocPoint> points = doc_points(db);
  for (const std::string& axis : axes) {
    INFO("axis " << axis);
    const auto [time, energy] = doc_axis_moves(points, axes, axis);
    // Each axis changes the suite total; the Eyeriss sample's buffers, swept for their energy,
    // change the energy (and the sweep notes that they leave the time alone).
    CHECK((time || energy));
    for (const std::string& w : axis_warnings)
      if (w.find(" " + axis + ":") != std::string::npos) {
        CHECK_THAT(w, Catch::StartsWith("note: "));
        CHECK_THAT(w, Catch::Contains("(it moves the suite energy)"));
      }
  }
}

}  // namespace

TEST_CASE("sweep: docs/sweep.md's commands are all found", "[sweep]") {
  const std::vector<DocCommand> commands = doc_commands();
  // The Ascend example, the H200's capped edge, the Eyeriss script, the strategy grid, the
  // mpirun-sweep example.
  REQUIRE(commands.size() == 5);
  CHECK(commands[0].words[2] == "samples/arch/ascend910b3.yaml");
  CHECK(doc_axes(commands[0].words) == std::vector<std::string>{"node:L1.capacity",
                                                                "node:HBM.bandwidth",
                                                                "edge:L2->L1.bandwidth"});
  REQUIRE(commands[1].warnings.size() == 1);
  CHECK_THAT(commands[1].warnings[0], Catch::Contains("node HBM's port"));
}

TEST_CASE("sweep: each architecture command of docs/sweep.md changes the result with each axis",
          "[sweep]") {
  for (const DocCommand& c : doc_commands())
    if (std::find(c.words.begin(), c.words.end(), "--arch") != c.words.end() &&
        c.text.find("eyeriss") == std::string::npos) {
      DYNAMIC_SECTION(c.text) { run_doc_command(c); }
    }
}

TEST_CASE(
    "sweep: docs/sweep.md's sample script and strategy grid change the result with each "
    "axis",
    "[sweep][slow]") {
  for (const DocCommand& c : doc_commands())
    if (std::find(c.words.begin(), c.words.end(), "--arch") == c.words.end() ||
        c.text.find("eyeriss") != std::string::npos) {
      DYNAMIC_SECTION(c.text) { run_doc_command(c); }
    }
}

TEST_CASE("sweep: an edge above the H200's HBM port is one warning naming the port", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "h200.sqlite";
  const RunResult r = run_tilescope({"sweep", "--arch", "samples/arch/nvidia-h200.yaml",
                                     "--workload", "samples/workloads/bert-large.yaml", "--vary",
                                     "edge:HBM->L2.bandwidth=4.8TB/s,9.6TB/s", "--budget", "32",
                                     "--db", db, "--summary"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  std::vector<std::string> about_hbm;
  for (const std::string& line : split_lines(r.err))
    if (line.rfind("warning: ", 0) == 0 && line.find("HBM") != std::string::npos)
      about_hbm.push_back(line);
  REQUIRE(about_hbm.size() == 1);
  CHECK(about_hbm[0] ==
        "warning: --vary edge:HBM->L2.bandwidth: values above 4.8 TB/s are capped by node HBM's "
        "port (node:HBM.bandwidth = 4.8 TB/s); 9.6 TB/s gives what 4.8 TB/s does");
  // It is so: the two points' totals are the same, and the sensitivity says 0, not "-0.000".
  const std::vector<DocPoint> points = doc_points(db);
  REQUIRE(points.size() == 2);
  CHECK(points[0].total_s == points[1].total_s);
  CHECK_THAT(r.out, Catch::Matches(R"((.|\n)*\ntotal +0\n(.|\n)*)"));
  CHECK_THAT(r.out, !Catch::Contains("-0.000"));
  // The time in a unit of its own, not thousands of microseconds.
  CHECK_THAT(r.out, Catch::Matches(R"((.|\n)*\n +[0-9.]+ ms +[0-9]+ +edge:(.|\n)*)"));
}

TEST_CASE("sweep: --cost names the front's cost, a bad one exits 2 before any point", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "cost.sqlite";
  const std::vector<std::string> base{"sweep",
                                      "--arch",
                                      "samples/arch/ascend910b3.yaml",
                                      "--workload",
                                      "samples/workloads/bert-large.yaml",
                                      "--vary",
                                      "node:L1.capacity=32KiB,64KiB",
                                      "--budget",
                                      "32",
                                      "--db",
                                      db};
  std::vector<std::string> bad = base;
  bad.insert(bad.end(), {"--cost", "bytes"});
  const RunResult refused = run_tilescope(bad);
  CHECK(refused.status == 2);
  CHECK_THAT(refused.err, Catch::StartsWith("--cost: 'bytes' is no cost"));
  CHECK_FALSE(std::filesystem::exists(db));

  std::vector<std::string> auto_cost = base;
  auto_cost.push_back("--summary");
  const RunResult memory = run_tilescope(auto_cost);
  REQUIRE(memory.status == 0);
  CHECK_THAT(memory.out, Catch::Contains("Pareto cost: memory bytes"));
  std::vector<std::string> l1 = auto_cost;
  l1.insert(l1.end(), {"--cost", "node:L1.capacity", "--format", "json"});
  const RunResult named = run_tilescope(l1);
  INFO(named.out << named.err);
  REQUIRE(named.status == 0);
  const nlohmann::json j = nlohmann::json::parse(named.out);
  CHECK(j.at("kind") == "architecture sweep");
  CHECK(j.at("points") == 2);
  CHECK(j.at("already_stored") == 2);
  const nlohmann::json& s = j.at("summary");
  CHECK(s.at("cost").at("figure") == "parameter");
  CHECK(s.at("cost").at("path") == "node:L1.capacity");
  REQUIRE(s.at("fronts").size() == 1);
  for (const nlohmann::json& p : s.at("fronts")[0].at("points"))
    CHECK(p.at("cost") == p.at("parameters").at("node:L1.capacity"));
  CHECK(s.at("sensitivities")[0].at("subject") == "total");
  CHECK(s.at("sensitivities")[0].at("elasticity").contains("node:L1.capacity"));
}

TEST_CASE("sweep: a strategy grid names dp collinear and fits tp and pp, in text and JSON",
          "[sweep]") {
  TempDir dir;
  const std::string db = dir / "grid.sqlite";
  const std::vector<std::string> args{"sweep",
                                      "--model",
                                      "samples/dist/models/mlp-mixer-b16.yaml",
                                      "--strategy",
                                      "samples/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml",
                                      "--cluster",
                                      "samples/dist/clusters/hgx-h200.yaml",
                                      "--operator-times",
                                      "roofline:0.5",
                                      "--db",
                                      db,
                                      "--summary",
                                      "--strategy-grid",
                                      "tp=1,2,4",
                                      "pp=1,2"};
  const RunResult text = run_tilescope(args);
  INFO(text.out << text.err);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.out, Catch::Contains("note: dp is not fitted: over these points it is "
                                       "determined by pp and tp"));
  CHECK_THAT(text.out, !Catch::Contains("-0.000"));
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.end(), {"--format", "json"});
  const RunResult json = run_tilescope(json_args);
  REQUIRE(json.status == 0);
  const nlohmann::json s = nlohmann::json::parse(json.out).at("summary");
  CHECK(s.at("paths") == std::vector<std::string>{"pp", "tp", "dp"});
  const nlohmann::json& total = s.at("sensitivities")[0];
  CHECK(total.at("elasticity").at("tp").is_number());
  CHECK(total.at("elasticity").at("pp").is_number());
  CHECK(total.at("elasticity").at("dp").is_null());
  REQUIRE(total.at("collinear").size() == 1);
  CHECK(total.at("collinear")[0].at("path") == "dp");
  CHECK(s.at("cost").at("figure") == "memory");
  // No elasticity of a subject that stays put is a large number: each is 0 or a fitted slope
  // below 10 in size (a grid's breakdown lines move at most as a few powers of a degree).
  for (const nlohmann::json& row : s.at("sensitivities"))
    for (const auto& [path, e] : row.at("elasticity").items())
      if (e.is_number()) CHECK(std::abs(e.get<double>()) < 10);
}

TEST_CASE(
    "sweep: the report's sweep section fits the grid as the CLI does and says what acts "
    "on nothing",
    "[sweep][report]") {
  // One core function (sweep_sensitivities on varied_sweep_paths) for the CLI, the GUI and the
  // report: the report names dp collinear and gives tp and pp their slopes, where it once left
  // the whole table empty (dp, tp and pp collinear on one cluster).
  TempDir dir;
  const std::string db = dir / "grid.sqlite";
  const RunResult grid =
      run_tilescope({"sweep", "--model", "samples/dist/models/mlp-mixer-b16.yaml", "--strategy",
                     "samples/dist/strategies/mlp-mixer-b16-tp2-pp2.yaml", "--cluster",
                     "samples/dist/clusters/hgx-h200.yaml", "--operator-times", "roofline:0.5",
                     "--db", db, "--summary", "--format", "json", "--strategy-grid", "tp=1,2,4",
                     "pp=1,2", "schedule=1f1b,gpipe"});
  INFO(grid.out << grid.err);
  REQUIRE(grid.status == 0);
  const nlohmann::json cli = nlohmann::json::parse(grid.out).at("summary");
  const RunResult report = run_tilescope({"report", "--sweep", db, "--out", dir / "r.html"}, 300);
  INFO(report.err);
  REQUIRE(report.status == 0);
  const std::string html = read_text(dir / "r.html");
  CHECK_THAT(html, Catch::Contains("dp is not fitted: over these points it is determined by pp "
                                   "and tp"));
  CHECK_THAT(html, Catch::Contains("Pareto cost: peak memory per GPU"));
  // The total's row: the same figures as the CLI's JSON, as the tables write them.
  const nlohmann::json& total = cli.at("sensitivities")[0].at("elasticity");
  for (const char* key : {"tp", "pp"}) {
    REQUIRE(total.at(key).is_number());
    const double e = total.at(key).get<double>();
    const std::string text = std::abs(e) < 0.0005 ? "0" : fmt::format("{:+.3f}", e);
    CHECK_THAT(html, Catch::Contains("<td>" + text + "</td>"));
  }
  CHECK_THAT(html, !Catch::Contains("-0.000"));
}
