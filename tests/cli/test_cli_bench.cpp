// `tilescope bench model`, `bench simulate` and `bench threads`: smoke tests of the commands and
// of what they say, not of the speed.
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

TEST_CASE("bench model says first what it will do and about how long", "[cli][bench]") {
  const RunResult r = run_tilescope(
      {"bench", "model", "--seconds", "0.05", "--repetitions", "2", "--part", "rate"});
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  REQUIRE(lines.size() >= 3);
  // After the line that names the bench mapping, before any figure: the rate part times
  // 2 x 2 x 0.05 s (with and without a hook).
  CHECK(std::regex_match(lines[1],
                         std::regex("bench model: the evaluation rate \\(2 x 0\\.05 s, with and "
                                    "without a cost hook\\): about [0-9.]+ s on this machine "
                                    "\\([0-9]+ threads?\\); Ctrl-C stops")));
  CHECK(lines[2].find("evaluations/s") != std::string::npos);
}

TEST_CASE("bench threads prints the speed-up of every core over one for each command",
          "[cli][bench][threads][slow]") {
  const RunResult r = run_tilescope({"bench", "threads", "--repetitions", "1"}, 600);
  INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.status == 0);
  const std::vector<std::string> lines = split_lines(r.out);
  REQUIRE(lines.size() == 7);
  CHECK(std::regex_match(lines[0], std::regex("bench threads: 1 x predict .*; 1 x compare .*; 1 x "
                                              "correlate .*: about .* on this machine .*; "
                                              "Ctrl-C stops")));
  const std::regex row(
      "(predict|compare|correlate) .* 1 thread +[0-9.]+ s +[0-9]+ threads +[0-9.]+ s +speed-up "
      "[0-9.]+x");
  for (size_t i = 2; i < 5; ++i) CHECK(std::regex_match(lines[i], row));
  CHECK(
      std::regex_match(lines[5], std::regex("speed-up of [0-9]+ threads over 1: predict "
                                            "[0-9.]+x, compare [0-9.]+x, correlate [0-9.]+x .*")));
  // The ceiling the machine itself gave, beside the figures: a busy machine's is below its cores.
  CHECK(std::regex_match(lines[6], std::regex("this machine's own ceiling: [0-9]+ independent "
                                              "evaluation loops at once ran [0-9.]+x as fast as "
                                              "one before the runs, [0-9.]+x after")));
}
