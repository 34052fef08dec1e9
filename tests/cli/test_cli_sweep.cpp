// `tilescope sweep` end to end: bad --vary exits 2 before any point runs, points are stored and a
// rerun skips them, a sweep killed half way resumes without recomputing, threads and MPI ranks
// store what one thread stores (docs/sweep.md). The MPI cases are built only when MPI was found
// (tagged [mpi]); without it the rest stay and pass.
#include <fmt/format.h>
#include <sqlite3.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;
using ts::test::TempDir;

namespace {

// BERT-large on the Ascend graph at a small mapper budget: a point takes milliseconds.
std::vector<std::string> sweep_args(const std::string& db, std::vector<std::string> vary,
                                    std::vector<std::string> more = {},
                                    const std::string& budget = "32") {
  std::vector<std::string> args{"sweep",
                                "--arch",
                                "samples/arch/ascend910b3.yaml",
                                "--workload",
                                "samples/workloads/bert-large.yaml",
                                "--budget",
                                budget,
                                "--db",
                                db};
  for (const std::string& v : vary) {
    args.push_back("--vary");
    args.push_back(v);
  }
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

struct Db {
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path);
    sqlite3_busy_timeout(db, 10000);  // a sweep may be writing it
  }
  ~Db() { sqlite3_close(db); }
  // Every row of the query, its columns joined by '|'.
  std::vector<std::string> rows(const std::string& sql) const {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db));
    std::vector<std::string> out;
    while (sqlite3_step(s) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(s); ++c) {
        const unsigned char* text = sqlite3_column_text(s, c);
        row += (c ? "|" : "") + std::string(text ? reinterpret_cast<const char*>(text) : "NULL");
      }
      out.push_back(row);
    }
    sqlite3_finalize(s);
    return out;
  }
  sqlite3* db = nullptr;
};

// What the two stores must agree on: every point's values and results. Doubles are printed with
// 17 digits so that a difference in the last bit shows.
std::vector<std::string> point_rows(const std::string& db) {
  return Db(db).rows(
      "SELECT sweep_key, workload_hash, parameters_json, arch_hash, printf('%.17g', total_s), "
      "printf('%.17g', cost), operators_json FROM sweep_points ORDER BY parameters_json");
}

size_t point_count(const std::string& db) { return point_rows(db).size(); }

std::string integrity(const std::string& db) { return Db(db).rows("PRAGMA integrity_check")[0]; }

// "N points, S already in DB, C computed": {N, S, C}.
std::vector<size_t> counts_of(const RunResult& r) {
  std::smatch m;
  const std::regex line(R"((\d+) points, (\d+) already in .*, (\d+) computed)");
  if (!std::regex_search(r.out, m, line)) FAIL("no counts in: " << r.out << r.err);
  return {std::stoul(m[1]), std::stoul(m[2]), std::stoul(m[3])};
}

// Sets an environment variable for the commands started in a scope.
struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

}  // namespace

TEST_CASE("sweep: a bad --vary path or value exits 2 naming it, before any point runs", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  const RunResult path = run_tilescope(sweep_args(db, {"node:L9.capacity=1MiB,2MiB"}));
  CHECK(path.status == 2);
  CHECK(path.out.empty());
  CHECK_THAT(path.err, Catch::StartsWith("--vary: 'node:L9.capacity'"));
  CHECK(split_lines(path.err).size() == 1);
  const RunResult value =
      run_tilescope(sweep_args(db, {"node:L1.capacity=512KiB", "node:Cube.instances=20,1.5"}));
  CHECK(value.status == 2);
  CHECK_THAT(value.err, Catch::Contains("bad values in 'node:Cube.instances=20,1.5'"));
  CHECK_THAT(value.err, Catch::Contains("'1.5': a count must be a whole number"));
  // Nothing ran, so nothing was written: not even the database.
  CHECK_FALSE(std::filesystem::exists(db));
}

TEST_CASE("sweep: points are stored as they finish and a rerun skips them", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  const auto args = sweep_args(db, {"node:Cube.instances=10,20,30"}, {"--summary"});
  const RunResult first = run_tilescope(args);
  REQUIRE(first.status == 0);
  CHECK(counts_of(first) == std::vector<size_t>{3, 0, 3});
  CHECK(point_count(db) == 3);
  // Compute instances do not change the memory the graph provides: every point costs the same,
  // and of equal costs only the fastest is on the front.
  CHECK_THAT(first.out, Catch::Contains("Pareto front, suite time against cost"));
  CHECK_THAT(first.out, Catch::Contains("1 of 3 points"));
  CHECK_THAT(first.out, Catch::Contains("node:Cube.instances"));
  // More cube cores never slow a GEMM: the suite's sensitivity to them is at most 0.
  std::smatch m;
  REQUIRE(std::regex_search(first.out, m, std::regex(R"(\ntotal +([-+]?[0-9.]+))")));
  CHECK(std::stod(m[1]) <= 0);
  const RunResult again = run_tilescope(args);
  REQUIRE(again.status == 0);
  CHECK(counts_of(again) == std::vector<size_t>{3, 3, 0});
  // One more value: only the new point is computed.
  const RunResult wider = run_tilescope(sweep_args(db, {"node:Cube.instances=10,20,30,40"}));
  CHECK(counts_of(wider) == std::vector<size_t>{4, 3, 1});
}

TEST_CASE("sweep: killed half way, a rerun computes only the points not stored", "[sweep]") {
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  const auto args = sweep_args(
      db, {"node:L1.capacity=256KiB,512KiB,1MiB", "node:Cube.instances=10,20"}, {"--threads", "1"});
  {
    const ScopedEnv crash("TILESCOPE_SWEEP_EXIT_AFTER", "0:2");
    const RunResult killed = run_tilescope(args);
    CHECK(killed.status == 3);
  }
  CHECK(point_count(db) == 2);
  const RunResult rerun = run_tilescope(args);
  REQUIRE(rerun.status == 0);
  // 3 x 2 points: 2 stored before the crash, the other 4 computed now, none twice.
  CHECK(counts_of(rerun) == std::vector<size_t>{6, 2, 4});
  CHECK(point_count(db) == 6);
  CHECK(integrity(db) == "ok");
}

TEST_CASE("sweep: Ctrl-C stops the sweep, keeps the points stored, and a rerun finishes it",
          "[sweep]") {
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  // 10 x 10 points on one thread: seconds of work, so the interrupt lands part way.
  const auto args = sweep_args(
      db,
      {"node:L1.capacity=128KiB,256KiB,384KiB,512KiB,640KiB,768KiB,896KiB,1MiB,1152KiB,1280KiB",
       "edge:HBM->L2.bandwidth=0.4TB/s,0.8TB/s,1.2TB/s,1.6TB/s,2TB/s,2.4TB/s,2.8TB/s,3.2TB/s,"
       "3.6TB/s,4TB/s"},
      {"--threads", "1"});
  BackgroundRun run(args);
  // Until the first point is stored (the database exists once the sweep has opened it).
  for (int i = 0; i < 600 && run.running(); ++i) {
    try {
      if (std::filesystem::exists(db) && point_count(db) > 0) break;
    } catch (const std::runtime_error&) {
      // Still being created: no sweep_points table yet.
    }
    ::usleep(50000);
  }
  run.signal(SIGINT);
  const RunResult stopped = run.wait();
  if (stopped.status == 0) return;  // it finished first on a fast machine: nothing to check
  CHECK(stopped.status == 130);
  CHECK_THAT(stopped.out, Catch::Contains("(stopped: rerun to compute the rest)"));
  const size_t stored = point_count(db);
  CHECK(stored > 0);
  CHECK(stored < 100);
  const RunResult rerun = run_tilescope(args);
  REQUIRE(rerun.status == 0);
  CHECK(counts_of(rerun) == std::vector<size_t>{100, stored, 100 - stored});
  CHECK(integrity(db) == "ok");
}

TEST_CASE("sweep: two threads store exactly what one thread stores", "[sweep]") {
  TempDir dir;
  const std::vector<std::string> vary{"node:L1.capacity=256KiB,1MiB",
                                      "edge:HBM->L2.bandwidth=0.8TB/s,1.6TB/s,3.2TB/s"};
  REQUIRE(run_tilescope(sweep_args(dir / "one.sqlite", vary, {"--threads", "1"})).status == 0);
  REQUIRE(run_tilescope(sweep_args(dir / "two.sqlite", vary, {"--threads", "2"})).status == 0);
  const auto one = point_rows(dir / "one.sqlite");
  CHECK(one.size() == 6);
  CHECK(point_rows(dir / "two.sqlite") == one);
}

TEST_CASE("sweep: lhs sampling draws the same points on every run", "[sweep]") {
  TempDir dir;
  const std::vector<std::string> vary{"node:L1.capacity=256KiB,1MiB",
                                      "edge:HBM->L2.bandwidth=0.8TB/s,3.2TB/s"};
  const RunResult a =
      run_tilescope(sweep_args(dir / "a.sqlite", vary, {"--sample", "lhs:5", "--seed", "9"}));
  REQUIRE(a.status == 0);
  CHECK(counts_of(a) == std::vector<size_t>{5, 0, 5});
  REQUIRE(run_tilescope(sweep_args(dir / "b.sqlite", vary, {"--sample", "lhs:5", "--seed", "9"}))
              .status == 0);
  CHECK(point_rows(dir / "b.sqlite") == point_rows(dir / "a.sqlite"));
  const RunResult bad = run_tilescope(sweep_args(dir / "c.sqlite", vary, {"--sample", "lhs"}));
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("'lhs' is no sampling"));
}

#if defined(TILESCOPE_MPIEXEC)
namespace {

// `mpirun -n RANKS tilescope ARGS...` in the source root, as root if need be (OpenMPI refuses
// root without its settings), with `env` (NAME=VALUE) passed to every rank. Returns the exit
// status; stdout and stderr go to files in `dir`.
int run_mpi(const TempDir& dir, int ranks, const std::vector<std::string>& args,
            const std::string& env = "") {
  std::string command = "cd '" + std::string(TILESCOPE_ROOT) +
                        "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 " + env +
                        " " + TILESCOPE_MPIEXEC + " --oversubscribe -n " + std::to_string(ranks);
  if (!env.empty()) command += " -x " + env.substr(0, env.find('='));
  command += " " + std::string(TILESCOPE_BINARY);
  for (const std::string& a : args) command += " '" + a + "'";
  command += " > '" + dir.file("mpi.out") + "' 2> '" + dir.file("mpi.err") + "'";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// The values of each axis: ten each, so that two axes give 100 points and three 1,000.
const std::vector<std::string> kAxes{
    "node:L1.capacity=128KiB,256KiB,384KiB,512KiB,640KiB,768KiB,896KiB,1MiB,1152KiB,1280KiB",
    "node:Cube.instances=4,8,12,16,20,24,28,32,36,40",
    "edge:HBM->L2.bandwidth=0.4TB/s,0.8TB/s,1.2TB/s,1.6TB/s,2TB/s,2.4TB/s,2.8TB/s,3.2TB/s,"
    "3.6TB/s,4TB/s"};

// The sweep over the first `axes` of kAxes, run by one process on one thread and by two ranks:
// the stores must hold the same rows, bit for bit.
void check_ranks_store_what_one_process_stores(size_t axes) {
  TempDir dir;
  const std::string single = dir / "single.sqlite", ranks = dir / "ranks.sqlite";
  const std::vector<std::string> vary(kAxes.begin(), kAxes.begin() + axes);
  const size_t points = axes == 2 ? 100 : 1000;
  const RunResult one = run_tilescope(sweep_args(single, vary, {"--threads", "1"}), 900);
  REQUIRE(one.status == 0);
  CHECK(counts_of(one) == std::vector<size_t>{points, 0, points});
  REQUIRE(run_mpi(dir, 2, sweep_args(ranks, vary)) == 0);
  CHECK_THAT(read_text(dir / "mpi.out"),
             Catch::Contains(fmt::format("{} points, 0 already in", points)));
  const auto expected = point_rows(single);
  CHECK(expected.size() == points);
  CHECK(point_rows(ranks) == expected);
}

}  // namespace

// 100 points in the suite (seconds); the 1,000 points of issue 23 take about a minute on two
// busy cores, so they are the hidden case below (run it with `tilescope_cli_tests "[mpi]"`
// or by name).
TEST_CASE("sweep: 100 points under mpirun -n 2 store what one process stores", "[sweep][mpi]") {
  check_ranks_store_what_one_process_stores(2);
}

TEST_CASE("sweep: 1,000 points under mpirun -n 2 store what one process stores",
          "[sweep][mpi][.]") {
  check_ranks_store_what_one_process_stores(3);
}

TEST_CASE("sweep: a rank killed half way, a rerun under mpirun computes only the rest",
          "[sweep][mpi]") {
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  // 100 points: rank 0 computes too, and on a busy machine rank 1 may start late, so the sweep
  // must be long enough for rank 1 to reach its third point well before the end.
  const auto args = sweep_args(db, {kAxes[0], kAxes[2]});
  // Rank 1 dies as it finishes its third point (the third never reaches rank 0); mpirun then
  // ends rank 0 too.
  CHECK(run_mpi(dir, 2, args, "TILESCOPE_SWEEP_EXIT_AFTER=1:3") != 0);
  const size_t stored = point_count(db);
  CHECK(stored >= 2);  // at least rank 1's first two
  CHECK(stored < 100);
  CHECK(integrity(db) == "ok");
  REQUIRE(run_mpi(dir, 2, args) == 0);
  const std::string out = read_text(dir / "mpi.out");
  CHECK_THAT(out, Catch::Contains(fmt::format("100 points, {} already in", stored)));
  CHECK_THAT(out, Catch::Contains(fmt::format("{} computed", 100 - stored)));
  CHECK(point_count(db) == 100);
  CHECK(integrity(db) == "ok");
}
#endif

TEST_CASE("sweep: a point that dominates another is never predicted slower, by construction",
          "[sweep][mapper]") {
  // Larger L1s and faster HBM -> L2 at 32 evaluations per operator: each point's search stops
  // far from its optimum, in a place that depends on the point's costs, so points alone are not
  // monotone. Every point then also tries the mappings found at the others (docs/sweep.md,
  // "Mappings exchanged"): a mapping that fits the smaller L1 fits the larger, and runs no slower
  // on more bandwidth, so for every operator a point with both values at least another's is at
  // most as slow.
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  const RunResult r =
      run_tilescope(sweep_args(db, {"node:L1.capacity=256KiB,512KiB,1MiB",
                                    "edge:HBM->L2.bandwidth=0.8TB/s,1.6TB/s,3.2TB/s"}));
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  std::smatch m;
  REQUIRE(std::regex_search(
      r.out, m, std::regex(R"((\d+) operator times at (\d+) points took a faster mapping)")));
  CHECK(std::stoul(m[1]) > 0);  // the searches alone disagree at this budget
  struct Point {
    double l1 = 0, bandwidth = 0;
    nlohmann::json operators;
  };
  std::vector<Point> points;
  size_t exchanged = 0;
  for (const std::string& row :
       Db(db).rows("SELECT parameters_json, operators_json FROM sweep_points")) {
    const size_t bar = row.find('|');
    const nlohmann::json values = nlohmann::json::parse(row.substr(0, bar));
    Point p{values.at("node:L1.capacity").get<double>(),
            values.at("edge:HBM->L2.bandwidth").get<double>(),
            nlohmann::json::parse(row.substr(bar + 1))};
    for (const nlohmann::json& op : p.operators) {
      CHECK_FALSE(op.value("mapping", "").empty());
      exchanged += op.contains("mapping_origin");
    }
    points.push_back(std::move(p));
  }
  REQUIRE(points.size() == 9);
  CHECK(exchanged == std::stoul(m[1]));
  size_t pairs = 0;
  for (const Point& a : points)
    for (const Point& b : points) {
      if (&a == &b || a.l1 < b.l1 || a.bandwidth < b.bandwidth) continue;
      ++pairs;
      for (size_t k = 0; k < a.operators.size(); ++k) {
        INFO(a.operators[k].at("name")
             << " at L1 " << a.l1 << ", " << a.bandwidth << " B/s against L1 " << b.l1 << ", "
             << b.bandwidth << " B/s");
        CHECK(a.operators[k].at("device_s").get<double>() <=
              b.operators[k].at("device_s").get<double>());
      }
    }
  CHECK(pairs == 27);  // (1 + 2 + 3)^2 - 9: every ordered pair of a point and one it dominates
}

TEST_CASE("sweep: operators whose search ran out of budget at some point are one warning",
          "[sweep][mapper]") {
  // Twenty evaluations per operator on the H100's space of billions of points: the searches are
  // still improving when they stop, at both points; one line names them, as predict's does.
  TempDir dir;
  const std::string db = dir / "points.sqlite";
  const std::string workload = dir / "ffn.yaml";
  std::ofstream(workload) << "version: 1\nkind: workload\nname: ffn\noperators:\n"
                             "  - {name: ffn_down, type: gemm, M: 4096, N: 768, K: 3072}\n";
  std::vector<std::string> args{"sweep",
                                "--arch",
                                "samples/arch/nvidia-h100.yaml",
                                "--workload",
                                workload,
                                "--budget",
                                "20",
                                "--db",
                                db,
                                "--vary",
                                "node:HBM.capacity=80GiB,96GiB"};
  const RunResult r = run_tilescope(args);
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  // Two lines: the searches', and (issue 41) that the HBM capacity changes nothing here, as
  // every operator's data fits 80 GiB already.
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 2);
  CHECK_THAT(lines[0], Catch::StartsWith("warning: the mapper's search"));
  CHECK_THAT(lines[1], Catch::StartsWith("warning: --vary node:HBM.capacity: no value changes"));
  CHECK_THAT(r.err, Catch::Contains("'ffn_down'"));
  CHECK_THAT(r.err, Catch::Contains("did not converge"));
  CHECK_THAT(r.err, Catch::Contains("--budget"));
  // A rerun reads the points back from the database, convergence included: the same warning.
  const RunResult again = run_tilescope(args);
  CHECK(counts_of(again) == std::vector<size_t>{2, 2, 0});
  CHECK(again.err == r.err);
  // At the default budget the searches converge and nothing is said.
  const RunResult converged =
      run_tilescope({"sweep", "--arch", "samples/arch/nvidia-h100.yaml", "--workload", workload,
                     "--db", dir / "converged.sqlite", "--vary", "node:HBM.capacity=80GiB"});
  REQUIRE(converged.status == 0);
  CHECK(converged.err.find("warning:") == std::string::npos);
}
