// `tilescope bench model` and `bench simulate`: smoke tests of the commands, not of the speed.
#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "RunTilescope.hpp"

using namespace ts::cli_test;

TEST_CASE("bench model runs and reports evaluations per second", "[cli][bench]") {
  // The suite and gap parts search for seconds; the rate alone shows the command works.
  const RunResult r = run_tilescope(
      {"bench", "model", "--seconds", "0.05", "--repetitions", "1", "--part", "rate"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  int rates = 0, hooked = 0;
  const std::regex rate("^[0-9]+ evaluations/s \\(one thread.*");
  // The same with a cost hook on every compute unit, and its ratio to the rate without.
  const std::regex with_hook(
      "^[0-9]+ evaluations/s with a cost hook on every compute unit \\([0-9.]+ of the rate "
      "without\\)$");
  for (const std::string& line : split_lines(r.out)) {
    if (std::regex_match(line, rate)) ++rates;
    if (std::regex_match(line, with_hook)) ++hooked;
  }
  CHECK(rates == 1);
  CHECK(hooked == 1);
}

TEST_CASE("bench model --part chooses the figures", "[cli][bench]") {
  const RunResult r = run_tilescope({"bench", "model", "--part", "nothing"});
  CHECK(r.status == 2);
  CHECK(r.out.empty());
}

TEST_CASE("bench simulate reports the wall time of the two large cases", "[cli][bench][slow]") {
  const RunResult r = run_tilescope({"bench", "simulate", "--repetitions", "1"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const std::regex line("^(gpt3-175b on 1024|gpt-1t on 3072) GPUs .* simulated in [0-9.]+ s .*");
  int cases = 0;
  for (const std::string& l : split_lines(r.out))
    if (std::regex_match(l, line)) ++cases;
  CHECK(cases == 2);
}
