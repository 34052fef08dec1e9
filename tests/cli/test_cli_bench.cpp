// `tilescope bench model`: a smoke test of the command, not of the speed.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "RunTilescope.hpp"

using namespace ts::cli_test;

TEST_CASE("bench model runs and reports evaluations per second", "[cli][bench]") {
  // The suite and gap parts search for seconds; the rate alone shows the command works.
  const RunResult r =
      run_tilescope({"bench", "model", "--seconds", "0.05", "--repetitions", "1", "--part", "rate"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  int rates = 0;
  const std::regex rate("^[0-9]+ evaluations/s.*");
  for (const std::string& line : split_lines(r.out))
    if (std::regex_match(line, rate)) ++rates;
  CHECK(rates == 1);
}

TEST_CASE("bench model --part chooses the figures", "[cli][bench]") {
  const RunResult r = run_tilescope({"bench", "model", "--part", "nothing"});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
}
