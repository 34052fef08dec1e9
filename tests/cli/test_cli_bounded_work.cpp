// Work bounded before it starts (issue 40; docs/formats.md, "Sizes"): every size that drives a
// command's memory or time is refused at its line past its one limit (common/WorkLimits.hpp),
// exit 2, nothing written: a YAML or JSON input past 64 MiB or without end, a sweep past a
// million points, a strategy past 100,000 micro-batches, a link whose rate is near zero (the
// simulation used to step for ever). An error quotes at most a few hundred bytes of what it read.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;
using ts::test::TempDir;

const std::string kRoot = std::string(TILESCOPE_ROOT) + "/";
const std::string kFixtures = kRoot + "tests/fixtures/bounded/";

// Exit 2 within the alarm, nothing on stdout, one line on stderr that starts with `place` and
// names each of `words`.
void check_refused(const RunResult& r, const std::string& place,
                   const std::vector<std::string>& words) {
  INFO(r.command.substr(0, 400) << "\nexit " << r.status << "\nstderr: " << r.err.substr(0, 2000));
  CHECK_FALSE(r.signaled);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind(place, 0) == 0);
  for (const std::string& word : words) {
    INFO("the message should mention '" << word << "'");
    CHECK(lines[0].find(word) != std::string::npos);
  }
}

std::string values(int n, const std::string& unit) {
  std::string text;
  for (int i = 1; i <= n; ++i) text += (i > 1 ? "," : "") + std::to_string(i) + unit;
  return text;
}

}  // namespace

TEST_CASE("a YAML or JSON input past 64 MiB, or without end, is refused before it is parsed",
          "[bounded]") {
  TempDir dir("bounded");
  const std::string big = dir / "big.json";
  {
    std::ofstream out(big, std::ios::binary);
    const std::string block(1 << 20, ' ');
    out << "{\"version\": 1,";
    for (int i = 0; i < 65; ++i) out << block;  // 65 MiB of blanks: valid JSON, too large
    out << "}";
  }
  check_refused(run_tilescope({"predict", "--arch", big, "--workload",
                               kRoot + "samples/workloads/bert-base.yaml"}),
                big + ": ", {"longer than 64 MiB", "Sizes"});
  // /dev/zero has no size to check first: read only as far as the limit.
  check_refused(run_tilescope({"validate", "/dev/zero"}, 60), "/dev/zero: ",
                {"longer than 64 MiB"});
}

TEST_CASE("an error quotes a large input's start and end on one line, not the whole file",
          "[bounded]") {
  TempDir dir("bounded");
  const std::string text = dir / "notes.txt";
  {
    std::ofstream out(text, std::ios::binary);
    for (int i = 0; i < 200000; ++i) out << "line " << i << " of a text that is not a graph\n";
  }
  const RunResult r = run_tilescope(
      {"predict", "--arch", text, "--workload", kRoot + "samples/workloads/bert-base.yaml"});
  INFO(r.err.substr(0, 2000));
  CHECK(r.status == 2);
  REQUIRE(split_lines(r.err).size() == 1);
  CHECK(r.err.size() < 1200);
  CHECK(r.err.rfind(text, 0) == 0);
}

TEST_CASE("a sweep past a million points is refused before any point runs", "[bounded]") {
  TempDir dir("bounded");
  const std::string db = dir / "sweep.sqlite";
  const std::vector<std::string> base{"sweep",      "--arch",
                                      kRoot + "samples/arch/nvidia-a100.yaml",
                                      "--workload", kRoot + "samples/workloads/bert-base.yaml",
                                      "--db",       db};
  std::vector<std::string> grid = base;
  grid.insert(grid.end(), {"--vary", "node:L2.capacity=" + values(1001, "MiB"), "--vary",
                           "launch_overhead=" + values(1000, "us")});
  check_refused(run_tilescope(grid, 60), "--vary: ", {"1000000", "1001 x 1000"});
  std::vector<std::string> drawn = base;
  drawn.insert(drawn.end(), {"--vary", "node:L2.capacity=1MiB,2MiB", "--sample", "random:1e8"});
  // Not a whole number: refused as before; a whole number past the limit: refused at the limit.
  CHECK(run_tilescope(drawn, 60).status == 2);
  drawn.back() = "random:100000000";
  check_refused(run_tilescope(drawn, 60), "--sample: ", {"100000000", "at most 1000000"});
  CHECK_FALSE(std::filesystem::exists(db));
}

TEST_CASE("a strategy of 2.3e18 micro-batches is refused at batch.global", "[bounded]") {
  const std::string strategy = kFixtures + "strategy-huge-batch.yaml";
  check_refused(run_tilescope({"simulate", "--model", kRoot + "samples/dist/models/gpt-22b.yaml",
                               "--strategy", strategy, "--cluster",
                               kRoot + "samples/dist/clusters/selene.yaml"},
                              60),
                strategy + ":11:", {"micro-batches", "at most 100000"});
}

TEST_CASE("a link of 1e-300 B/s is an error naming the task, not a simulation without end",
          "[bounded]") {
  check_refused(
      run_tilescope({"simulate", "--model", kRoot + "samples/dist/models/gpt-22b.yaml",
                     "--strategy", kRoot + "samples/dist/strategies/gpt-22b-full.yaml",
                     "--cluster", kFixtures + "cluster-near-zero-link.yaml"},
                    60),
      "simulation: ", {"task '", "rate near zero"});
}
