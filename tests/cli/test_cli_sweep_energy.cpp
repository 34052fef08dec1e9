// `tilescope sweep --summary` on energy and area (docs/sweep.md, "Energy, area and EDP"): the
// sample sweep of the Eyeriss-like design's buffers (samples/sweeps/eyeriss-buffers.sh, its
// arguments read from the script) prints the fronts of time against suite energy and against
// graph area with energy, area and EDP columns, and the store holds each point's figures; a graph
// without figures prints the memory front as before.
#include <fmt/format.h>
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

// The sample's `--arch`, `--workload`, `--vary` and `--budget` arguments, as the script gives
// them.
std::vector<std::string> sample_args() {
  const std::string script = read_text(root_path("samples/sweeps/eyeriss-buffers.sh"));
  std::vector<std::string> args{"sweep"};
  const std::regex option(R"((--arch|--workload|--vary|--budget) +([^ \\\n]+))");
  for (std::sregex_iterator it(script.begin(), script.end(), option), end; it != end; ++it) {
    args.push_back((*it)[1]);
    args.push_back((*it)[2]);
  }
  return args;
}

struct FrontRow {
  double total_us, energy, area_mm2, edp;
};

// The rows of the front whose title contains `title`: time, energy, area, EDP.
std::vector<FrontRow> front_rows(const std::string& out, const std::string& title) {
  const size_t at = out.find(title);
  REQUIRE(at != std::string::npos);
  std::istringstream in(out.substr(at));
  std::string line;
  std::getline(in, line);  // the title
  std::getline(in, line);  // the header
  std::vector<FrontRow> rows;
  while (std::getline(in, line) && !line.empty()) {
    std::istringstream cells(line);
    FrontRow r{};
    // The time with the unit format_quantity chose for it ("258 us", "1.47 ms").
    std::string unit;
    cells >> r.total_us >> unit >> r.energy >> r.area_mm2 >> r.edp;
    REQUIRE(cells);
    const std::map<std::string, double> us_per{{"ns", 1e-3}, {"us", 1}, {"ms", 1e3}, {"s", 1e6}};
    REQUIRE(us_per.count(unit) == 1);
    r.total_us *= us_per.at(unit);
    rows.push_back(r);
  }
  return rows;
}

size_t count_of(const std::string& out, const std::string& title) {
  std::smatch m;
  REQUIRE(std::regex_search(out, m, std::regex(title + R"(.*, ([0-9]+) of ([0-9]+) points)")));
  return std::stoul(m[1]);
}

}  // namespace

TEST_CASE("sweep: the sample buffer sweep prints fronts on energy and on area", "[sweep][energy]") {
  TempDir dir;
  const std::string db = dir / "eyeriss.sqlite";
  std::vector<std::string> args = sample_args();
  REQUIRE(args.size() == 11);  // arch, workload, three axes
  args.insert(args.end(), {"--db", db, "--summary"});
  const RunResult r = run_tilescope(args, 600);
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("18 points, 0 already in"));
  // Energy and area are known at every point: both fronts, no memory-bytes front.
  CHECK_THAT(r.out, Catch::Contains("Pareto front, suite time against suite energy"));
  CHECK_THAT(r.out, Catch::Contains("Pareto front, suite time against graph area"));
  CHECK_THAT(r.out, !Catch::Contains("against cost (memory bytes"));
  CHECK_THAT(r.out, Catch::Contains("area_mm2"));
  CHECK_THAT(r.out, Catch::Contains("edp_uJ_us"));
  CHECK_THAT(r.out, Catch::Contains("ranking of the parameters by the suite energy's sensitivity"));
  CHECK_THAT(r.out, Catch::Contains("ranking of the parameters by the graph area's sensitivity"));

  // A front: falling time as the figure rises, EDP = energy x time.
  for (const char* title : {"against suite energy", "against graph area"}) {
    const std::vector<FrontRow> rows = front_rows(r.out, title);
    REQUIRE_FALSE(rows.empty());
    CHECK(rows.size() == count_of(r.out, title));
    for (size_t i = 0; i < rows.size(); ++i) {
      // The time prints with three significant figures: EDP = energy x time within them.
      CHECK(rows[i].edp == Approx(rows[i].energy * rows[i].total_us).epsilon(5e-3));
      CHECK(rows[i].area_mm2 > 0);
      if (i == 0) continue;
      CHECK(rows[i].total_us < rows[i - 1].total_us);
      if (std::string(title) == "against suite energy")
        CHECK(rows[i].energy >= rows[i - 1].energy);
      else
        CHECK(rows[i].area_mm2 >= rows[i - 1].area_mm2);
    }
  }
  // Area moves with the MAC units' instances only (capacities are no area key): three areas among
  // the points, so the area front holds at most three.
  CHECK(front_rows(r.out, "against graph area").size() <= 3);

  // The store holds every point's energy and area.
  sqlite3* raw = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(raw,
                             "SELECT count(*), count(energy_j), count(area_m2), "
                             "count(DISTINCT area_m2) FROM sweep_points",
                             -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  CHECK(sqlite3_column_int(s, 0) == 18);
  CHECK(sqlite3_column_int(s, 1) == 18);
  CHECK(sqlite3_column_int(s, 2) == 18);
  CHECK(sqlite3_column_int(s, 3) == 3);
  sqlite3_finalize(s);
  sqlite3_close(raw);
}

TEST_CASE("sweep: a graph without energy or area prints the memory front, no energy",
          "[sweep][energy]") {
  TempDir dir;
  const RunResult r =
      run_tilescope({"sweep", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
                     "samples/workloads/bert-large.yaml", "--budget", "32", "--db",
                     dir / "p.sqlite", "--vary", "node:L1.capacity=256KiB,512KiB", "--summary"});
  INFO(r.out << r.err);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Pareto front, suite time against cost (memory bytes"));
  CHECK_THAT(r.out, !Catch::Contains("suite energy"));
  CHECK_THAT(r.out, !Catch::Contains("graph area"));
}
