// `tilescope sweep --strategy-grid` end to end: a bad grid key exits 2 before any point runs,
// points are stored and a rerun skips them (also after a crash half way), the summary prints
// the sensitivities and the Pareto front (docs/sweep.md).
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

// MLP-Mixer B/16 from its tp 2 x pp 2 x dp 2 strategy on HGX H200 nodes, roofline operator times:
// a point takes milliseconds.
std::vector<std::string> grid_args(const std::string& db, std::vector<std::string> grid,
                                   std::vector<std::string> more = {}) {
  std::vector<std::string> args{"sweep",
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
                                "--strategy-grid"};
  args.insert(args.end(), grid.begin(), grid.end());
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

size_t grid_point_count(const std::string& db) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h, "SELECT count(*) FROM sweep_points", -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  const auto n = static_cast<size_t>(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(h);
  return n;
}

// "N points, S already in DB, C computed": {N, S, C}.
std::vector<size_t> grid_counts_of(const RunResult& r) {
  std::smatch m;
  const std::regex line(R"((\d+) points, (\d+) already in .*, (\d+) computed)");
  if (!std::regex_search(r.out, m, line)) FAIL("no counts in: " << r.out << r.err);
  return {std::stoul(m[1]), std::stoul(m[2]), std::stoul(m[3])};
}

}  // namespace

TEST_CASE("sweep: a bad --strategy-grid key exits 2 naming it, before any point runs", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "grid.sqlite";
  const RunResult key = run_tilescope(grid_args(db, {"tp=1,2", "nodes=1,2"}));
  CHECK(key.status == 2);
  CHECK(key.out.empty());
  CHECK_THAT(key.err, Catch::StartsWith("--strategy-grid: 'nodes=1,2': unknown key 'nodes'"));
  CHECK(split_lines(key.err).size() == 1);
  const RunResult value = run_tilescope(grid_args(db, {"tp=1,two"}));
  CHECK(value.status == 2);
  CHECK_THAT(value.err, Catch::Contains("'tp=1,two': 'two' is not a whole number"));
  // A grid with --vary mixes two kinds of sweep.
  std::vector<std::string> mixed = grid_args(db, {"tp=1,2"});
  mixed.insert(mixed.end(), {"--vary", "node:L1.capacity=1MiB"});
  CHECK(run_tilescope(mixed).status == 2);
  CHECK_FALSE(std::filesystem::exists(db));
}

TEST_CASE("sweep: a strategy grid's points are stored and a rerun skips them", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "grid.sqlite";
  // tp in {1, 2} x pp in {1, 2}, dp making up 8 GPUs: 4 points, all fit.
  const RunResult first = run_tilescope(grid_args(db, {"tp=1,2", "pp=1,2"}, {"--summary"}));
  INFO(first.out << first.err);
  REQUIRE(first.status == 0);
  CHECK(grid_counts_of(first) == std::vector<size_t>{4, 0, 4});
  CHECK(grid_point_count(db) == 4);
  CHECK_THAT(first.out, Catch::Contains("ranking of the parameters by the total's sensitivity"));
  CHECK_THAT(first.out, Catch::Contains("Pareto front, iteration time against cost (peak memory"));
  CHECK_THAT(first.out, Catch::Contains("pipeline bubble and transfers"));
  const RunResult again = run_tilescope(grid_args(db, {"tp=1,2", "pp=1,2"}));
  REQUIRE(again.status == 0);
  CHECK(grid_counts_of(again) == std::vector<size_t>{4, 4, 0});
  // micro-batch 32 is the base strategy's: those 4 points are the ones stored; 4 more are new.
  const RunResult wider = run_tilescope(grid_args(db, {"tp=1,2", "pp=1,2", "mbs=16,32"}));
  REQUIRE(wider.status == 0);
  CHECK(grid_counts_of(wider) == std::vector<size_t>{8, 4, 4});
  CHECK(grid_point_count(db) == 8);
}

TEST_CASE("sweep: a strategy grid killed half way resumes without recomputing", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "grid.sqlite";
  const auto args = grid_args(db, {"tp=1,2", "pp=1,2", "mbs=16,32"}, {"--threads", "1"});
  ::setenv("TILESCOPE_SWEEP_EXIT_AFTER", "0:3", 1);
  const RunResult killed = run_tilescope(args);
  ::unsetenv("TILESCOPE_SWEEP_EXIT_AFTER");
  CHECK(killed.status == 3);
  CHECK(grid_point_count(db) == 3);
  const RunResult rerun = run_tilescope(args);
  REQUIRE(rerun.status == 0);
  CHECK(grid_counts_of(rerun) == std::vector<size_t>{8, 3, 5});
}
