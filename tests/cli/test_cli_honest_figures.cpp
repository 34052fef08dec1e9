// Issue 18, "honest statistics and gates": figures over no points are n/a (JSON null), a gate on
// such a figure or on a NaN threshold exits 2 in one line naming --fail-if, a comparison with no
// operator in common says so once on stderr, an empty run is never the default, and no output
// replaces an input of the same command. Every case works on a copy of the results fixture in a
// fresh folder and checks that the copy's bytes and the folder's listing are as they were.
//
// The fixture (tests/fixtures/db/make_fixtures.py): run 1 measured gemm_512 (tiled, openblas),
// softmax_1k and layernorm_1k; run 2 (incomplete) softmax_1k alone; run 3 (cancelled) nothing.
#include <sqlite3.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;
using namespace ts::cli_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A copy of the fixture in a fresh folder, changed by `sql` (empty: as committed), with its bytes
// and the folder's names kept to check that a command changed nothing.
class DbCopy {
 public:
  explicit DbCopy(const std::string& sql = "", const std::string& name = "results.sqlite") {
    path_ = dir_ / name;
    fs::copy_file(fixture("db/results-v1.sqlite"), path_);
    if (!sql.empty()) {
      sqlite3* db = nullptr;
      REQUIRE(sqlite3_open(path_.c_str(), &db) == SQLITE_OK);
      REQUIRE(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
      sqlite3_close(db);
    }
    bytes_ = read_text(path_);
    names_ = dir_.names();
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return dir_ / name; }
  const fs::path& folder() const { return dir_.path(); }
  void check_untouched() const {
    CHECK(read_text(path_) == bytes_);
    CHECK(dir_.names() == names_);
  }

 private:
  TempDir dir_{"honest"};
  std::string path_, bytes_;
  std::vector<std::string> names_;
};

// Run 2's softmax measured through another implementation: it pairs with nothing of run 1
// (points pair by suite, operator, shape, mapping and timing scope), but keeps its stored
// prediction (a black box's prediction is looked up by operator alone).
const char* kNothingInCommon =
    "UPDATE measurements SET implementation = 'vector-fused' WHERE id = 5";

}  // namespace

TEST_CASE("correlate --diff-run with no operator in common: figures n/a, one line on stderr",
          "[cli][correlate][diff][honest]") {
  const DbCopy db(kNothingInCommon);
  const std::vector<std::string> base{"correlate", "--db",       db.path(), "--run",
                                      "2",         "--diff-run", "1"};
  SECTION("the table prints n/a and says why once") {
    const RunResult r = run_tilescope(base);
    INFO(r.command << "\nstderr: " << r.err);
    CHECK(r.status == 0);
    CHECK(r.err ==
          "warning: no operator in common between " + db.path() +
              " run 1 (host of host-suite, 4 measurements) (3 operators) and " + db.path() +
              " run 2 (host of host-suite, 1 measurements) (1 operators): the comparison's "
              "figures are n/a\n");
    CHECK_THAT(r.out, Catch::Contains("0 operators in both, 3 only before, 1 only after"));
    // Every figure of both sides and of the change: no 0.0000 or 0.00 % anywhere.
    for (const char* row : {"before", "after", "change"}) {
      INFO(row);
      const size_t at = r.out.find(std::string("\n") + row + " ");
      REQUIRE(at != std::string::npos);
      const std::string line = r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
      std::vector<std::string> cells;
      std::istringstream words(line);
      for (std::string w; words >> w;) cells.push_back(w);
      CHECK(cells == std::vector<std::string>{row, "n/a", "n/a", "n/a", "n/a"});
    }
  }
  SECTION("JSON writes null, schema 2") {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--format", "json"});
    const RunResult r = run_tilescope(args);
    INFO(r.command << "\nstderr: " << r.err);
    REQUIRE(r.status == 0);
    const json j = json::parse(r.out);
    CHECK(j.at("schema_version") == 2);
    CHECK(j.at("operators").empty());
    for (const char* side : {"overall_before", "overall_after"}) {
      CHECK(j.at(side).at("count") == 0);
      for (const char* figure : {"pearson", "spearman", "kendall", "mape", "log_rmse"})
        CHECK(j.at(side).at(figure).is_null());
    }
  }
  SECTION("a gate on it is not checked: exit 2, the one line says why") {
    std::vector<std::string> args = base;
    args.insert(args.end(), {"--fail-if", "mape>0.1"});
    const RunResult r = run_tilescope(args);
    INFO(r.command << "\nstdout: " << r.out);
    CHECK(r.status == 2);
    CHECK(r.err ==
          "--fail-if: 'mape>0.1' not checked: mape over no operators: the runs have no operator "
          "in common\n");
  }
  db.check_untouched();
}

TEST_CASE("correlate --fail-if: a threshold that is not a finite number is refused at once",
          "[cli][correlate][gate][honest]") {
  const DbCopy db;
  // Each expression with the number as the message quotes it.
  const auto [gate, number] =
      GENERATE(table<std::string, std::string>({{"mape>nan", "nan"},
                                                {"spearman<NaN", "NaN"},
                                                {"mape>inf", "inf"},
                                                {"kendall>=-inf", "-inf"}}));
  const RunResult r =
      run_tilescope({"correlate", "--db", db.path(), "--run", "1", "--fail-if", gate});
  INFO(r.command);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("--fail-if: cannot read '" + gate + "': '" + number +
                                      "' is not a finite number; expected METRIC OP NUMBER"));
  CHECK(split_lines(r.err).size() == 1);
  db.check_untouched();
}

TEST_CASE("correlate --fail-if on a correlation of one point is not checked",
          "[cli][correlate][gate][honest]") {
  // Run 2 holds one measurement with a prediction: softmax_1k, predicted 30 us (device time),
  // measured 43 us. MAPE = 13/43 = 0.3023 is a figure; a Spearman of one point is not.
  const DbCopy db;
  const RunResult mape =
      run_tilescope({"correlate", "--db", db.path(), "--run", "2", "--fail-if", "mape>0.5"});
  INFO(mape.err);
  CHECK(mape.status == 0);
  CHECK_THAT(mape.out, Catch::Contains("30.23%"));
  const RunResult r =
      run_tilescope({"correlate", "--db", db.path(), "--run", "2", "--fail-if", "spearman<0.9"});
  CHECK(r.status == 2);
  CHECK(r.err ==
        "--fail-if: 'spearman<0.9' not checked: spearman needs 2 points or more and there is 1\n");
  // The table still shows the figures, the correlations of one point as n/a.
  std::vector<std::string> overall;
  for (const std::string& line : split_lines(r.out))
    if (line.rfind("overall ", 0) == 0) {
      std::istringstream words(line);
      for (std::string w; words >> w;) overall.push_back(w);
    }
  REQUIRE(overall.size() == 7);
  CHECK(overall[1] == "1");
  CHECK(overall[2] == "n/a");  // pearson
  CHECK(overall[3] == "n/a");  // spearman
  CHECK(overall[4] == "n/a");  // kendall
  CHECK(overall[5] == "30.23%");
  db.check_untouched();
}

TEST_CASE("an empty run is never the default: correlate and db export skip it",
          "[cli][correlate][db][honest]") {
  // Run 4: what a kill at the very start of `measure` leaves, an incomplete run with nothing.
  const DbCopy db(
      "INSERT INTO runs (id, started_at, status, collector, workload, tool_version, "
      "settings_json, device_id) VALUES (4, '2026-12-01T10:00:00Z', 'incomplete', 'host', "
      "'host-suite', '0.1.0', '{}', 1)");
  const RunResult c = run_tilescope({"correlate", "--db", db.path(), "--format", "json"});
  INFO(c.err);
  REQUIRE(c.status == 0);
  // Runs 4 and 3 hold no measurement: the default is run 2, with its one softmax.
  CHECK_THAT(json::parse(c.out).at("source").get<std::string>(), Catch::Contains(" run 2 "));
  const RunResult e = run_tilescope({"db", "export", "--db", db.path()});
  REQUIRE(e.status == 0);
  REQUIRE(split_lines(e.out).size() == 2);
  CHECK_THAT(split_lines(e.out)[1], Catch::StartsWith("host-suite,softmax_1k,"));
  db.check_untouched();
}

TEST_CASE("a database whose runs hold no measurement has no default run: exit 2 naming it",
          "[cli][correlate][db][honest]") {
  const DbCopy db("DELETE FROM measurements");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"correlate", "--db", db.path()},
        std::vector<std::string>{"db", "export", "--db", db.path()}}) {
    const RunResult r = run_tilescope(args);
    INFO(r.command);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == db.path() +
                       ": none of its 3 runs holds a measurement (the latest, run 3, is "
                       "cancelled); `tilescope measure` records one\n");
  }
  db.check_untouched();
}

TEST_CASE("db export --out over its own --db is refused, in every spelling of the path",
          "[cli][db][honest]") {
  const DbCopy db;
  const std::string name = fs::path(db.path()).filename().string();
  const std::string folder = db.folder().filename().string();
  // The same file as given, through "." and "..", and through a symbolic link.
  fs::create_symlink(db.path(), db.file("link.sqlite"));
  const std::vector<std::string> spellings{db.path(), (db.folder() / "." / name).string(),
                                           (db.folder() / ".." / folder / name).string(),
                                           db.file("link.sqlite")};
  for (const std::string& out : spellings) {
    for (const char* format : {"csv", "json"}) {
      const RunResult r =
          run_tilescope({"db", "export", "--db", db.path(), "--format", format, "--out", out});
      INFO(r.command);
      CHECK(r.status == 2);
      CHECK(r.out.empty());
      CHECK(r.err == "--out: '" + out + "' is the same file as --db '" + db.path() +
                         "'; a command never writes over its own input: give --out another "
                         "file\n");
    }
  }
  fs::remove(db.file("link.sqlite"));
  db.check_untouched();
}

TEST_CASE("report --out over its own --db is refused before any work", "[cli][report][honest]") {
  // A database named like a report, so that the output's extension alone does not refuse it.
  const DbCopy db("", "runs.html");
  const RunResult r = run_tilescope({"report", "--db", db.path(), "--run", "1", "--out",
                                     (db.folder() / "." / "runs.html").string()});
  INFO(r.command);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "--out: '" + (db.folder() / "." / "runs.html").string() +
                     "' is the same file as --db '" + db.path() +
                     "'; a command never writes over its own input: give --out another file\n");
  db.check_untouched();
}

TEST_CASE("report: a gate on a comparison with nothing in common is 'not checked', exit 2",
          "[cli][report][gate][honest][slow]") {
  const DbCopy db(kNothingInCommon);
  const std::string out = db.file("diff.html");
  const RunResult r = run_tilescope({"report", "--db", db.path(), "--run", "2", "--diff-run", "1",
                                     "--out", out, "--fail-if", "mape>0.35"});
  INFO(r.command << "\nstdout: " << r.out);
  CHECK(r.status == 2);
  CHECK(r.err ==
        "--fail-if: 'mape>0.35' not checked: mape over no operators: the runs have no operator "
        "in common\n");
  // The report is written, and says the gate was not checked: never "passed".
  REQUIRE(fs::exists(out));
  const std::string html = read_text(out);
  CHECK_THAT(html, Catch::Contains("<td>mape&gt;0.35</td><td>n/a</td><td class=\"crossed\">not "
                                   "checked: mape over no operators: the runs have no operator in "
                                   "common</td>"));
  CHECK_THAT(html, !Catch::Contains(">passed<"));
  const std::string open = "id=\"tilescope-report-data\">";
  const size_t from = html.find(open) + open.size();
  const json data = json::parse(html.substr(from, html.find("</script>", from) - from));
  CHECK(data.at("schema_version") == 2);
  REQUIRE(data.at("gates").size() == 1);
  CHECK(data.at("gates")[0].at("figure").is_null());
  CHECK(data.at("gates")[0].at("result") == "not_checked");
  CHECK(data.at("gates")[0].at("crossed") == false);
  CHECK(data.at("comparison").at("overall_after").at("mape").is_null());
  fs::remove(out);
  db.check_untouched();
}

TEST_CASE("correlate --by size: an empty group's figures are n/a in the table and null in JSON",
          "[cli][correlate][honest]") {
  // Run 1's three predicted points are all far below 1 PFLOP: small holds them, medium and large
  // hold none.
  const DbCopy db;
  const std::vector<std::string> base{"correlate", "--db", db.path(),       "--run",
                                      "1",         "--by", "size=1e15,1e16"};
  const RunResult table = run_tilescope(base);
  INFO(table.err);
  REQUIRE(table.status == 0);
  for (const char* group : {"medium", "large"}) {
    INFO(group);
    std::vector<std::string> cells;
    for (const std::string& line : split_lines(table.out))
      if (line.rfind(std::string(group) + " ", 0) == 0) {
        std::istringstream words(line);
        for (std::string w; words >> w;) cells.push_back(w);
      }
    CHECK(cells == std::vector<std::string>{group, "0", "n/a", "n/a", "n/a", "n/a", "n/a"});
  }
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--format", "json"});
  const RunResult r = run_tilescope(args);
  REQUIRE(r.status == 0);
  const json groups = json::parse(r.out).at("groups");
  REQUIRE(groups.size() == 3);
  CHECK(groups[0].at("count") == 3);
  CHECK(groups[0].at("mape").is_number());
  for (size_t g = 1; g < 3; ++g)
    for (const char* figure : {"pearson", "spearman", "kendall", "mape", "log_rmse"})
      CHECK(groups[g].at(figure).is_null());
  db.check_untouched();
}

TEST_CASE("report --fail-if with a NaN threshold is refused before any work",
          "[cli][report][gate][honest]") {
  const DbCopy db;
  const std::string out = db.file("gated.html");
  const RunResult r = run_tilescope(
      {"report", "--db", db.path(), "--run", "1", "--out", out, "--fail-if", "mape>nan"});
  INFO(r.command);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::StartsWith("--fail-if: cannot read 'mape>nan': 'nan' is not a finite "
                                      "number; expected METRIC OP NUMBER"));
  CHECK(split_lines(r.err).size() == 1);
  CHECK_FALSE(fs::exists(out));
  db.check_untouched();
}
