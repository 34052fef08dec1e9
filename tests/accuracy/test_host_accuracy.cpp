// The whole loop on this machine: calibrate the host from microbenchmarks only, measure the host
// suite, and correlate. CI checks a sanity floor (the targets of the closing note are checked by
// hand as the median of 3 runs on a quiet machine): MAPE at most 40 %, Spearman at least 0.8.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "RunTilescope.hpp"

using namespace ts::cli_test;
namespace fs = std::filesystem;

TEST_CASE("host suite: predictions from the calibrated graph agree with measurements",
          "[accuracy][host]") {
  const fs::path dir =
      fs::temp_directory_path() / ("tilescope-accuracy-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string arch = (dir / "host.yaml").string(), db = (dir / "host.sqlite").string();
  RunResult cal = run_tilescope({"calibrate", "host", "--out", arch});
  INFO(cal.err);
  REQUIRE(cal.status == 0);
  RunResult meas = run_tilescope({"measure", "--collector", "host", "--workload",
                                  "samples/workloads/host-suite.yaml", "--arch", arch, "--db", db});
  INFO(meas.err);
  REQUIRE(meas.status == 0);
  RunResult cor = run_tilescope({"correlate", "--db", db, "--by", "class", "--format", "json"});
  INFO(cor.err);
  REQUIRE(cor.status == 0);
  const auto j = nlohmann::json::parse(cor.out);
  const auto& overall = j.at("overall");
  INFO(cor.out);
  CHECK(overall.at("count").get<int>() >= 60);
  CHECK(overall.at("mape").get<double>() <= 0.40);
  CHECK(overall.at("spearman").get<double>() >= 0.80);
  fs::remove_all(dir);
}
