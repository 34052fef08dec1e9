// The one way the CLI draws progress: on a terminal, a line redrawn in place and cleared at the
// end; anywhere else, nothing.
#include <catch2/catch.hpp>
#include <sstream>

#include "RunTilescope.hpp"
#include "TerminalProgress.hpp"

using ts::cli::TerminalProgress;

TEST_CASE("progress off a terminal writes nothing", "[cli][progress]") {
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
