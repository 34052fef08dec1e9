// Concurrent writers wait (issue 40): imports started at once into a database that does not yet
// exist all add their runs (one creates it, the others find it made and add to it), and imports
// into an existing one never see a false "damaged" from the lock-free pre-check.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;

std::vector<RunResult> import_at_once(const std::string& db, int count) {
  std::vector<RunResult> results(static_cast<size_t>(count));
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i)
    threads.emplace_back([&, i] {
      results[static_cast<size_t>(i)] =
          run_tilescope({"import", "csv", "tests/fixtures/csv/gemm-small.csv", "--db", db, "--op",
                         "gemm", "--scope", "device"},
                        120);
    });
  for (std::thread& t : threads) t.join();
  return results;
}

size_t runs_in(const std::string& db) {
  const RunResult listed = run_tilescope({"db", "runs", "--db", db, "--format", "json"});
  REQUIRE(listed.status == 0);
  return nlohmann::json::parse(listed.out)["runs"].size();
}

}  // namespace

TEST_CASE("four imports at once into a new database all add their runs", "[import][concurrent]") {
  for (int round = 0; round < 3; ++round) {
    ts::test::TempDir dir("concurrent-new");
    const std::string db = dir / "results.sqlite";
    for (const RunResult& r : import_at_once(db, 4)) {
      INFO(r.command << "\nexit " << r.status << "\nstderr: " << r.err);
      CHECK(r.status == 0);
    }
    CHECK(runs_in(db) == 4);
  }
}

TEST_CASE("imports at once into an existing database: no false damage, every run kept",
          "[import][concurrent]") {
  ts::test::TempDir dir("concurrent-existing");
  const std::string db = dir / "results.sqlite";
  REQUIRE(import_at_once(db, 1)[0].status == 0);
  size_t expected = 1;
  for (int round = 0; round < 4; ++round) {
    for (const RunResult& r : import_at_once(db, 4)) {
      INFO(r.command << "\nexit " << r.status << "\nstderr: " << r.err);
      CHECK(r.status == 0);
      CHECK(r.err.find("damaged") == std::string::npos);
    }
    expected += 4;
  }
  CHECK(runs_in(db) == expected);
}
