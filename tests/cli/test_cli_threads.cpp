// `--threads` of predict, compare and correlate (common/WorkThreads): the operators are spread
// over the threads, and what the commands print does not depend on how many there are, to the
// byte; a count that is not a whole number from 1 up is refused before any work. The speed-up
// itself is `tilescope bench threads`' figure, not a test's.
#include <catch2/catch.hpp>
#include <regex>
#include <string>
#include <vector>

#include "RunTilescope.hpp"

namespace {

using namespace ts::cli_test;

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

// A short search keeps the tests quick under the sanitizers; the searches that run out of it
// (a warning each on stderr) must warn alike whatever the threads.
const std::vector<std::string> kPredict{"predict",
                                        "--arch",
                                        "samples/arch/nvidia-h100.yaml",
                                        "--workload",
                                        "samples/workloads/bert-base.yaml",
                                        "--budget",
                                        "3000"};
const std::vector<std::string> kCompare{"compare",
                                        "--arch",
                                        "samples/arch/nvidia-h100.yaml",
                                        "--arch",
                                        "samples/arch/nvidia-h200.yaml",
                                        "--arch",
                                        "samples/arch/ascend910b3.yaml",
                                        "--workload",
                                        "samples/workloads/bert-base.yaml",
                                        "--budget",
                                        "3000"};
const std::vector<std::string> kCorrelate{"correlate",
                                          "--csv",
                                          "tests/fixtures/csv/gemm-small.csv",
                                          "--arch",
                                          "samples/arch/ascend910b3.yaml",
                                          "--op",
                                          "gemm",
                                          "--budget",
                                          "2000"};

// The command with --threads 1, 2 and 3 (more threads than a 2-core machine has): the same
// stdout and stderr each time.
void check_same_whatever_the_threads(const std::vector<std::string>& command) {
  const RunResult one = run_tilescope(with(command, {"--threads", "1"}));
  INFO(one.command << "\nstderr: " << one.err);
  REQUIRE(one.status == 0);
  REQUIRE_FALSE(one.out.empty());
  for (const char* threads : {"2", "3"}) {
    const RunResult more = run_tilescope(with(command, {"--threads", threads}));
    INFO(more.command << "\nstderr: " << more.err);
    REQUIRE(more.status == 0);
    CHECK(more.out == one.out);
    CHECK(more.err == one.err);
  }
}

}  // namespace

TEST_CASE("predict prints the same rows with --threads 1, 2 and 3", "[cli][threads]") {
  check_same_whatever_the_threads(kPredict);
  check_same_whatever_the_threads(with(kPredict, {"--format", "json", "--explain"}));
}

TEST_CASE("compare prints the same comparison with --threads 1, 2 and 3", "[cli][threads]") {
  check_same_whatever_the_threads(with(kCompare, {"--format", "json"}));
}

TEST_CASE("correlate prints the same figures with --threads 1, 2 and 3", "[cli][threads]") {
  check_same_whatever_the_threads(with(kCorrelate, {"--format", "json"}));
}

TEST_CASE("a --threads that is not a whole number from 1 up is refused with exit status 2",
          "[cli][threads]") {
  for (const auto& command : {kPredict, kCompare, kCorrelate})
    for (const char* bad : {"0", "-2", "two", "1.5", "100000"}) {
      const RunResult r = run_tilescope(with(command, {"--threads", bad}));
      INFO(r.command << "\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.status == 2);
      CHECK(r.out.empty());
      const std::vector<std::string> lines = split_lines(r.err);
      REQUIRE_FALSE(lines.empty());
      // The first line says what is wrong; CLI11 adds its pointer to --help after it, as it
      // does for every usage error.
      CHECK(lines.front().rfind("--threads:", 0) == 0);
      CHECK(lines.front().find(bad) != std::string::npos);
    }
}

TEST_CASE("predict, compare and correlate show --threads in their help, with its default",
          "[cli][threads]") {
  for (const char* command : {"predict", "compare", "correlate"}) {
    const RunResult r = run_tilescope({command, "--help"});
    INFO(r.command << "\n" << r.out);
    CHECK(r.status == 0);
    CHECK(std::regex_search(r.out, std::regex("--threads[^\\n]*\\n?[^\\n]*default: every core, "
                                              "[0-9]+ here")));
  }
}
