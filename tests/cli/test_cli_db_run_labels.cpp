// `tilescope db runs` labels each run by what tells it from the others (issue 22): the runner
// import stores one run per implementation and timing scope, and runs 1 and 2 (the tilescope
// kernels, device time and host_call time) share everything else.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

TEST_CASE("db runs tells runs apart that differ only by timing scope", "[cli][db]") {
  ts::test::TempDir dir("db-run-labels");
  const std::string db = dir / "results.sqlite";
  REQUIRE(run_tilescope({"import", "runner", "tests/fixtures/cupti/small-gpu-results.jsonl", "--db",
                         db, "--arch", "samples/arch/nvidia-h200.yaml", "--workload",
                         "tests/fixtures/cupti/small-gpu-suite.yaml"})
              .status == 0);

  const RunResult json = run_tilescope({"db", "runs", "--db", db, "--format", "json"});
  REQUIRE(json.status == 0);
  const auto runs = nlohmann::json::parse(json.out)["runs"];
  REQUIRE(runs.size() == 8);
  const std::string first = runs[0]["label"], second = runs[1]["label"];
  CHECK(first != second);
  CHECK_THAT(first, Catch::Contains("tilescope") && Catch::Contains("timing device"));
  CHECK_THAT(second, Catch::Contains("tilescope") && Catch::Contains("timing host_call"));
  // Eight runs, eight labels: implementation x scope is what differs between them.
  std::set<std::string> labels;
  for (const auto& r : runs) labels.insert(r["label"].get<std::string>());
  CHECK(labels.size() == 8);

  // The table ends each line with the same label.
  const RunResult table = run_tilescope({"db", "runs", "--db", db});
  REQUIRE(table.status == 0);
  const std::vector<std::string> lines = split_lines(table.out);
  REQUIRE(lines.size() == 9);
  CHECK_THAT(lines[0], Catch::EndsWith("measurements  label"));
  CHECK_THAT(lines[1], Catch::EndsWith("  " + first));
  CHECK_THAT(lines[2], Catch::EndsWith("  " + second));
}
