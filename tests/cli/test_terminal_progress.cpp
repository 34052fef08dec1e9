// The one way the CLI draws progress: on a terminal, a line redrawn in place and cleared at the
// end; anywhere else, a plain line every few seconds with done/total and the time left.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "RunTilescope.hpp"
#include "TerminalProgress.hpp"

using ts::cli::duration_text;
using ts::cli::TerminalProgress;

TEST_CASE("progress off a terminal writes nothing without an interval", "[cli][progress]") {
  std::ostringstream out;
  {
    TerminalProgress progress(out, false);
    CHECK_FALSE(progress.on_terminal());
    progress.show("predicting 1/3");
    progress.show_bar(1, 3, "repetitions");
    progress.clear();
  }
  CHECK(out.str().empty());
}

TEST_CASE("progress on a terminal redraws one line and clears it", "[cli][progress]") {
  std::ostringstream out;
  TerminalProgress progress(out, true);
  progress.show("a");
  progress.show("b");
  progress.clear();
  progress.clear();  // nothing shown any more: nothing written
  CHECK(out.str() == "\r\033[Ka\r\033[Kb\r\033[K");

  out.str("");
  progress.show_bar(1, 3, "repetitions  gemm");
  // 30 columns, a third of them filled.
  CHECK(out.str() ==
        "\r\033[K[" + std::string(10, '#') + std::string(20, '-') + "] 1/3 repetitions  gemm");
  out.str("");
  progress.show_bar(0, 0, "nothing to do");  // no total: no bar, and no division by zero
  CHECK(out.str().empty());
}

TEST_CASE("progress is cleared when the work ends early", "[cli][progress]") {
  std::ostringstream out;
  {
    TerminalProgress progress(out, true);
    progress.show("fold 1/5");
  }  // an error unwinds past the command: its message must start on a clean line
  CHECK(out.str() == "\r\033[Kfold 1/5\r\033[K");
}

TEST_CASE("predict writes no escape codes when stderr is not a terminal", "[cli][progress]") {
  const ts::cli_test::RunResult r = ts::cli_test::run_tilescope(
      {"predict", "--arch", "samples/arch/ascend910b3.yaml", "--workload",
       "samples/workloads/bert-base.yaml", "--format", "csv"});
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\033') == std::string::npos);
  CHECK(r.err.find('\r') == std::string::npos);
}

TEST_CASE("progress off a terminal: a line per interval with done/total and the time left",
          "[cli][progress]") {
  std::ostringstream out;
  double now_s = 100;  // a clock the test moves by hand
  TerminalProgress progress(out, false, "measure", 5, [&] { return now_s; });
  progress.show_count(0, 40, "predicting");  // t = 0: the count begins
  now_s = 104;
  progress.show_count(10, 40, "predicting");  // 4 s < 5 s: nothing yet
  CHECK(out.str().empty());
  now_s = 106;
  // 12 done in 6 s is 0.5 s each; 28 left take 14 s.
  progress.show_count(12, 40, "predicting");
  CHECK(out.str() == "measure: 12/40 done, 14 s left\n");
  now_s = 110;
  progress.show_bar(16, 40, "repetitions");  // 4 s since the last line: nothing
  CHECK(out.str() == "measure: 12/40 done, 14 s left\n");
  now_s = 171;
  // 20 done in 71 s is 3.55 s each; 20 left take 71 s = 1 min 11 s.
  out.str("");
  progress.show_bar(20, 40, "repetitions");
  CHECK(out.str() == "measure: 20/40 done, 1 min 11 s left\n");
  // A new count (another total) starts its own pace: 0 done, no time left to say.
  now_s = 180;
  out.str("");
  progress.show_count(0, 8, "repetitions");
  CHECK(out.str() == "measure: 0/8 done\n");
  // 2 of 8 in 10 s since that count began: 5 s each, 6 left take 30 s.
  now_s = 190;
  out.str("");
  progress.show_count(2, 8, "repetitions");
  CHECK(out.str() == "measure: 2/8 done, 30 s left\n");
  // Text without a count, after an interval; clear() writes nothing off a terminal.
  now_s = 196;
  out.str("");
  progress.show("fitting: evaluation 40");
  progress.clear();
  CHECK(out.str() == "measure: fitting: evaluation 40\n");
}

TEST_CASE("progress durations: seconds, minutes and seconds, hours and minutes",
          "[cli][progress]") {
  CHECK(duration_text(0) == "0 s");
  CHECK(duration_text(12.4) == "12 s");
  CHECK(duration_text(59.6) == "1 min 00 s");  // rounds to 60 s
  CHECK(duration_text(65) == "1 min 05 s");
  CHECK(duration_text(3725) == "1 h 02 min");  // 3600 + 2 x 60 + 5
  CHECK(duration_text(-3) == "0 s");
}

TEST_CASE("progress interval: TILESCOPE_PROGRESS_INTERVAL, 5 s without it", "[cli][progress]") {
  const char* saved = std::getenv("TILESCOPE_PROGRESS_INTERVAL");
  const std::string before = saved ? saved : "";
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0.25", 1);
  CHECK(ts::cli::progress_interval_s() == 0.25);
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "soon", 1);  // not a number: the default
  CHECK(ts::cli::progress_interval_s() == 5);
  ::unsetenv("TILESCOPE_PROGRESS_INTERVAL");
  CHECK(ts::cli::progress_interval_s() == 5);
  if (saved) ::setenv("TILESCOPE_PROGRESS_INTERVAL", before.c_str(), 1);
}

TEST_CASE("compare with stderr to a file prints progress lines at a short interval",
          "[cli][progress]") {
  // progress_lines_off.cpp turns the lines off for every other test; this one turns them on, every
  // 10 ms, so that a run of a few seconds writes several.
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0.01", 1);
  const ts::cli_test::RunResult r =
      ts::cli_test::run_tilescope({"compare", "--arch", "samples/arch/nvidia-h100.yaml", "--arch",
                                   "samples/arch/nvidia-h200.yaml", "--workload",
                                   "samples/workloads/bert-base.yaml", "--format", "csv"});
  ::setenv("TILESCOPE_PROGRESS_INTERVAL", "0", 1);
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(r.err.find('\033') == std::string::npos);
  size_t progress_lines = 0;
  for (const std::string& line : ts::cli_test::split_lines(r.err)) {
    if (line.rfind("compare: ", 0) != 0) continue;
    ++progress_lines;
    // "compare: 12/26 done, 3 s left": the total is operators x graphs.
    CHECK(line.find(" done") != std::string::npos);
    CHECK(line.find("/26 done") != std::string::npos);
  }
  CHECK(progress_lines >= 2);
}
