// The whole loop on this machine: calibrate the host from microbenchmarks only, measure the host
// suite, and correlate. CI checks a sanity floor, not the aim: the figures of the closing notes
// are checked by hand as the median of 3 runs on a quiet machine. Quiet-machine MAPE has been
// 30-36 % on the development machine and 45 % on a CI machine (ca4c05a), against an aim of
// 15 %; the floor of 50 % on the points the collector trusts is what a graph calibrated a factor
// of two off would cross. A point measured while other processes were busy, or whose median the
// collector could not pin down, is marked unstable and left out (--exclude-unstable); when most
// of them are, the machine cannot judge accuracy, and the test checks only that it said so.
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

  RunResult all = run_tilescope({"correlate", "--db", db, "--format", "json"});
  INFO(all.err);
  REQUIRE(all.status == 0);
  const auto every = nlohmann::json::parse(all.out);
  const int measured = every.at("overall").at("count").get<int>();
  CHECK(measured >= 60);

  RunResult cor = run_tilescope(
      {"correlate", "--db", db, "--by", "class", "--format", "json", "--exclude-unstable"});
  INFO(cor.err);
  const bool most_unstable =
      cor.status != 0 ||
      nlohmann::json::parse(cor.out).at("overall").at("count").get<int>() < measured / 2;
  if (most_unstable) {
    // A busy machine: the run must say so, and accuracy cannot be judged on it.
    CHECK_THAT(meas.err, Catch::Contains("measurements are unstable"));
    WARN("most host measurements were unstable on this machine; accuracy not judged\n" << meas.err);
  } else {
    const auto j = nlohmann::json::parse(cor.out);
    const auto& overall = j.at("overall");
    INFO(cor.out);
    CHECK(overall.at("mape").get<double>() <= 0.50);
    CHECK(overall.at("spearman").get<double>() >= 0.80);
  }
  fs::remove_all(dir);
}
