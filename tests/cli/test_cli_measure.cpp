// `tilescope measure` end to end on the host: a calibrated graph, measurements and predictions
// in the database, and what a kill or a Ctrl-C in the middle leaves behind.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;

using namespace ts::cli_test;
namespace fs = std::filesystem;

namespace {

// The host graph of this machine, calibrated once for all tests here (quick settings).
const std::string& host_graph() {
  static TempDir dir;
  static std::string path = [] {
    std::string out = dir / "host.yaml";
    RunResult r = run_tilescope({"calibrate", "host", "--out", out, "--runs", "1"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    return out;
  }();
  return path;
}

// Reads the database with SQLite itself, read-only, as an outside program would.
struct Db {
  sqlite3* db = nullptr;
  explicit Db(const std::string& path) {
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
      throw std::runtime_error("cannot open " + path);
    sqlite3_busy_timeout(db, 2000);
  }
  ~Db() { sqlite3_close(db); }
  std::string text(const std::string& sql) const {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db));
    std::string value;
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
      value = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return value;
  }
  long count(const std::string& table) const {
    return std::stol(text("SELECT count(*) FROM " + table));
  }
};

long measurements_so_far(const std::string& db) {
  if (!fs::exists(db)) return 0;
  try {
    return Db(db).count("measurements");
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

std::vector<std::string> measure_args(const std::string& db, int repetitions) {
  return {"measure", "--collector", "host", "--workload", fixture("measure/small-host-suite.yaml"),
          "--arch", host_graph(), "--db", db, "--repetitions", std::to_string(repetitions),
          // Exactly that many: the tests count repetitions and time the run.
          "--max-repetitions", std::to_string(repetitions), "--group", "1", "--mappings-per-gemm",
          "4", "--no-flush"};
}

}  // namespace

TEST_CASE("measure stores a checked measurement and a prediction for every job",
          "[cli][measure][host][slow]") {
  TempDir dir;
  const std::string db = dir / "results.sqlite";
  RunResult r = run_tilescope(measure_args(db, 5));
  INFO(r.err);
  REQUIRE(r.status == 0);
  Db d(db);
  // 2 GEMMs x (4 mappings + OpenBLAS) + 2 vector operators.
  CHECK(d.count("measurements") == 12);
  CHECK(d.text("SELECT status FROM runs") == "complete");
  CHECK(d.text("SELECT min(repetitions) FROM measurements") == "5");
  CHECK(d.text("SELECT count(*) FROM measurements WHERE checked = 1") == "12");
  CHECK(d.text("SELECT count(*) FROM measurements WHERE min_ns > 0 AND min_ns <= median_ns") ==
        "12");
  CHECK(std::stol(d.text("SELECT count(*) FROM predictions")) >= 12);
  CHECK(
      d.text("SELECT count(DISTINCT mapping_id) FROM measurements WHERE mapping_id IS NOT NULL") ==
      "8");

  // The stored predictions join the measurements; a fit without --arch fits the run's graph and
  // prints cross-validated figures beside training ones.
  RunResult cor = run_tilescope({"correlate", "--db", db, "--format", "json"});
  INFO(cor.err);
  REQUIRE(cor.status == 0);
  CHECK(nlohmann::json::parse(cor.out).at("overall").at("count").get<int>() == 12);
  RunResult fit = run_tilescope({"correlate", "--db", db, "--fit", "node:Core.efficiency", "--fit",
                                 "launch_overhead", "--folds", "3", "--format", "json"});
  INFO(fit.err);
  REQUIRE(fit.status == 0);
  const auto j = nlohmann::json::parse(fit.out);
  CHECK(j.contains("training"));
  CHECK(j.at("overall").at("count").get<int>() == 12);
}

TEST_CASE("kill -9 in the middle of measure keeps every completed measurement",
          "[cli][measure][host][slow]") {
  TempDir dir;
  const std::string db = dir / "results.sqlite";
  // Many repetitions, one operator per group: measurements land one by one over seconds.
  BackgroundRun run(measure_args(db, 60));
  long seen = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (seen < 2 && run.running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seen = measurements_so_far(db);
  }
  REQUIRE(seen >= 2);
  REQUIRE(run.running());  // still working: the kill lands half way
  run.signal(SIGKILL);
  RunResult r = run.wait();
  CHECK(r.signaled);

  Db d(db);
  CHECK(d.text("PRAGMA integrity_check") == "ok");
  CHECK(d.count("measurements") >= seen);
  CHECK(d.count("measurements") < 12);
  CHECK(d.text("SELECT status FROM runs") == "incomplete");
  // No half row: every stored measurement is whole.
  CHECK(d.text("SELECT count(*) FROM measurements WHERE repetitions < 5 OR median_ns IS NULL OR "
               "operator_id IS NULL") == "0");
  RunResult runs = run_tilescope({"db", "runs", "--db", db, "--format", "json"});
  INFO(runs.err);
  CHECK(runs.status == 0);
  CHECK(runs.out.find("incomplete") != std::string::npos);
}

TEST_CASE("Ctrl-C stops measure cleanly and marks the run cancelled",
          "[cli][measure][host][slow]") {
  TempDir dir;
  const std::string db = dir / "results.sqlite";
  BackgroundRun run(measure_args(db, 60));
  long seen = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (seen < 1 && run.running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    seen = measurements_so_far(db);
  }
  REQUIRE(seen >= 1);
  run.signal(SIGINT);
  RunResult r = run.wait();
  CHECK(r.status == 130);
  Db d(db);
  CHECK(d.text("PRAGMA integrity_check") == "ok");
  CHECK(d.text("SELECT status FROM runs") == "cancelled");
  CHECK(d.count("measurements") >= seen);
}

TEST_CASE("measure refuses a missing host graph with a hint", "[cli][measure]") {
  TempDir dir;
  RunResult r = run_tilescope({"measure", "--workload", fixture("measure/small-host-suite.yaml"),
                               "--arch", dir / "nope.yaml", "--db", dir / "r.sqlite"});
  CHECK(r.status == 2);
  CHECK(r.err.find("calibrate host") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "r.sqlite"));
}
