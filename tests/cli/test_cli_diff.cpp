// `correlate --diff` and `--fail-if`: two results databases that differ in one operator's
// measurement put that operator first with its delta; thresholds exit 1 when crossed and 2 when
// they cannot be read. (The report command of issue 7 is to draw on the same core.)
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;
using namespace ts::cli_test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A copy of the results fixture whose softmax measurement (id 3, 42 us) took 1.5 times as long.
std::string slower_softmax(const TempDir& dir) {
  const std::string path = dir.file("after.sqlite");
  fs::copy_file(std::string(TILESCOPE_FIXTURES) + "/db/results-v1.sqlite", path);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  REQUIRE(sqlite3_exec(db, "UPDATE measurements SET median_ns = median_ns * 1.5 WHERE id = 3",
                       nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(db);
  return path;
}

}  // namespace

TEST_CASE("correlate --diff shows the operator whose measurement changed first",
          "[cli][correlate][diff]") {
  TempDir dir;
  const std::string after = slower_softmax(dir);
  const RunResult r = run_tilescope({"correlate", "--db", after, "--run", "1", "--diff",
                                     "tests/fixtures/db/results-v1.sqlite", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  const json j = json::parse(r.out);
  REQUIRE(j.at("operators").size() == 3);
  const json& first = j.at("operators").at(0);
  CHECK(first.at("operator").get<std::string>().find("softmax_1k") != std::string::npos);
  CHECK(first.at("measured_us_before").get<double>() == Approx(42.0));
  CHECK(first.at("measured_us_after").get<double>() == Approx(63.0));
  CHECK(first.at("measured_change").get<double>() == Approx(0.5));
  CHECK(first.at("worse_by").get<double>() > 0);
  for (size_t k = 1; k < 3; ++k)
    CHECK(j.at("operators").at(k).at("measured_change").get<double>() == Approx(0).margin(1e-12));
  CHECK(j.at("overall_after").at("mape").get<double>() >
        j.at("overall_before").at("mape").get<double>());

  const RunResult table = run_tilescope(
      {"correlate", "--db", after, "--run", "1", "--diff", "tests/fixtures/db/results-v1.sqlite"});
  REQUIRE(table.status == 0);
  const size_t header = table.out.find("worse first");
  REQUIRE(header != std::string::npos);
  const std::string rows =
      table.out.substr(table.out.find('\n', table.out.find('\n', header) + 1) + 1);
  CHECK(rows.substr(0, rows.find('\n')).find("softmax_1k") != std::string::npos);
  CHECK_THAT(rows.substr(0, rows.find('\n')), Catch::Contains("+50.0%"));
}

TEST_CASE("correlate --fail-if exits 1 past a threshold and 2 on a malformed one",
          "[cli][correlate][gate]") {
  const std::vector<std::string> base{"correlate", "--db", "tests/fixtures/db/results-v1.sqlite",
                                      "--run", "1"};
  auto with = [&](const std::string& gate) {
    std::vector<std::string> args = base;
    args.push_back("--fail-if");
    args.push_back(gate);
    return run_tilescope(args);
  };
  const RunResult crossed = with("mape>0.0001");
  CHECK(crossed.status == 1);
  CHECK_THAT(crossed.err, Catch::Contains("fail-if: mape"));
  CHECK_THAT(crossed.out, Catch::Contains("overall"));  // the report is still printed
  CHECK(with("mape>0.99").status == 0);
  const RunResult bad = with("mape>>0.1");
  CHECK(bad.status == 2);
  CHECK_THAT(bad.err, Catch::Contains("'mape>>0.1'"));
  CHECK(bad.out.empty());
}
