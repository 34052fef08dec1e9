// `tilescope measure` with its output not a terminal (a pipe, a CI log: `scripts/run 2>&1 | cat`)
// writes plain progress lines with done/total and the time left, no carriage return or escape
// code. The interval is shortened so that a measurement of a few seconds writes several.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using ts::test::TempDir;
using namespace ts::cli_test;

TEST_CASE("measure with stderr to a file prints progress lines with done/total and time left",
          "[cli][measure][progress][host][slow]") {
  TempDir dir;
  const std::string graph = dir / "host.yaml", db = dir / "results.sqlite";
  const RunResult cal = run_tilescope({"calibrate", "host", "--out", graph, "--runs", "1"});
  INFO(cal.err);
  REQUIRE(cal.status == 0);
  // progress_lines_off.cpp turns the lines off for every other test; on here, every 10 ms.
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0.01", 1);
  const RunResult r = run_tilescope({"measure",
                                     "--collector",
                                     "host",
                                     "--workload",
                                     fixture("measure/small-host-suite.yaml"),
                                     "--arch",
                                     graph,
                                     "--db",
                                     db,
                                     "--repetitions",
                                     "5",
                                     "--max-repetitions",
                                     "12",
                                     "--tolerance",
                                     "0.001",
                                     "--group",
                                     "1",
                                     "--mappings-per-gemm",
                                     "4",
                                     "--no-flush"});
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0", 1);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find('\033') == std::string::npos);
  // "measure: 12/40 done, 3 s left": the count grows to its total, and once one is done the
  // time left is given.
  const std::regex line_form(R"(measure: (\d+)/(\d+) done(, .+ left)?)");
  // A tolerance of 0.1 % makes jobs take repetitions past their minimum of 5 (up to 12): the
  // total must not grow with them. Planning counts operators and measuring counts jobs, so at
  // most two totals appear, one after the other, each fixed while its stage runs.
  size_t lines = 0, with_time_left = 0;
  std::vector<unsigned long> totals;
  for (const std::string& line : split_lines(r.err)) {
    if (line.rfind("measure: ", 0) != 0) continue;
    std::smatch m;
    INFO(line);
    REQUIRE(std::regex_match(line, m, line_form));
    CHECK(std::stoul(m[1]) <= std::stoul(m[2]));
    if (totals.empty() || totals.back() != std::stoul(m[2])) totals.push_back(std::stoul(m[2]));
    ++lines;
    if (m[3].matched) ++with_time_left;
  }
  CHECK(lines >= 2);
  CHECK(with_time_left >= 1);
  INFO(r.err);
  CHECK(totals.size() <= 2);
}
